from kimas_desktop.text.sentences import ends_sentence, split_sentences, text_kind


def texts(text: str, kind: str = "prose") -> list[str]:
    return [s.text for s in split_sentences(text, kind)]  # type: ignore[arg-type]


def test_every_sentence_is_a_verbatim_slice_with_offsets() -> None:
    text = "  Dr. Smith came at 3.5 p.m. to the U.S. office.\nHe left early!  Why? Nobody knows.\n\n"
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == [
        "Dr. Smith came at 3.5 p.m. to the U.S. office.",
        "He left early!",
        "Why?",
        "Nobody knows.",
    ]
    assert all(text[s.start : s.end] == s.text for s in sentences)
    assert [s.index for s in sentences] == [0, 1, 2, 3]


def test_initials_abbreviations_and_lower_case_continuations_do_not_end_a_sentence() -> None:
    assert texts("It was written by J. R. R. Tolkien in 1937. It sold well.") == [
        "It was written by J. R. R. Tolkien in 1937.",
        "It sold well.",
    ]
    assert texts("They walked approx. ten miles, e.g. to the lake. Then home.") == [
        "They walked approx. ten miles, e.g. to the lake.",
        "Then home.",
    ]


def test_wrapped_lines_join_blank_lines_separate_and_cjk_needs_no_space() -> None:
    text = (
        "The server is called\nhermes and runs nightly back-\nups. Restore takes an hour\n\nA new paragraph"
    )
    assert texts(text) == [
        "The server is called\nhermes and runs nightly back-\nups.",
        "Restore takes an hour",
        "A new paragraph",
    ]
    assert texts("東京は大きい。次の文です。") == ["東京は大きい。", "次の文です。"]


def test_markdown_headings_items_and_fenced_code_stand_alone() -> None:
    md = "# Setup\nInstall it first. Then run it.\n- item one\n- item two\n```bash\npip install x\n```\n| a | b |"
    assert texts(md, "markdown") == [
        "# Setup",
        "Install it first.",
        "Then run it.",
        "- item one",
        "- item two",
        "pip install x",
        "| a | b |",
    ]


def test_code_is_split_by_line_and_long_sentences_are_cut() -> None:
    assert texts("def f(x):\n    return x + 1\n\n# done. really\n", "code") == [
        "def f(x):",
        "return x + 1",
        "# done. really",
    ]
    long = "word " * 200 + "end."
    parts = split_sentences(long, max_chars=100)
    assert len(parts) > 5 and all(len(p.text) <= 100 for p in parts)
    assert all(long[p.start : p.end] == p.text for p in parts)


def test_text_kind_by_file_name() -> None:
    assert text_kind("/docs/a.py") == "code"
    assert text_kind("/docs/README.md") == "markdown"
    assert text_kind("/docs/manual.pdf") == "prose"


def test_a_sentence_ends_with_any_scripts_mark_and_a_label_does_not() -> None:
    """The file cards and the evaluation's known-item questions both read a line without an end mark as a
    label ("Tipp", "Note") and drop it; a Hindi or Chinese line that ends as a sentence is no label."""
    for text in ("It runs.", "यह सही है।", "这是什么？", "见下文。」", "Wirklich?\n", "هل هذا صحيح؟"):
        assert ends_sentence(text), text
    for text in ("Tipp", "Note:", "सावधानी", "注意", "Chapter 2"):
        assert not ends_sentence(text), text
