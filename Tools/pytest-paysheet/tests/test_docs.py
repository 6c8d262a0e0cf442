"""The README's and the guide's example is the test CI runs, word for word."""
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[2]


def test_the_readme_and_the_guide_show_the_example_ci_runs():
    example = "\n".join(line for line in (HERE / "test_readme_example.py").read_text().splitlines()
                        if not line.startswith("#"))
    assert example.startswith("def test_")
    assert len(example.splitlines()) == 10
    for document in ["README.md", "docs/testing-your-checkout.md"]:
        assert "```python\n" + example + "\n```" in (REPOSITORY / document).read_text(), f"{document} differs from the test"
