"""The Evaluation tab ("How good is it on my documents?"): ``layout`` lays it out and wires it;
``handlers`` makes test sets, runs and compares them, and tests retrieval on one question."""
