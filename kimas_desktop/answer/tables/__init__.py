"""Table questions answered in code (issue 43): ``planner`` reads a question into a ``TableQuery`` over one
table (no model), ``answer`` chooses the table among the evidence's files, runs the plan on the
``TableEngine`` and words the answer; ``reading`` holds the tokens and row texts the planner reads."""
