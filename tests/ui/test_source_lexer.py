"""The source pane's lexer (ui/widgets.py CudaLexer)."""


def test_the_source_panes_lexer_keeps_every_character_and_colours_as_the_editors_do():
    """ui/widgets.py CudaLexer: kernel/syntax.py's highlights() as Pygments tokens, for Rich's Syntax."""
    from pygments.token import Comment, Keyword, Name, Number, String

    from kt_tui.ui.widgets import CudaLexer

    source = (
        "// é: a comment\n#define N 4\n__global__ void k(float *x) {\n"
        '\tx[threadIdx.x] = 1.5f; /* ü\n */ const char *s = "a//b"; f(x);\n}'
    )
    tokens = list(CudaLexer().get_tokens_unprocessed(source))
    assert "".join(text for _, _, text in tokens) == source
    assert all(source[at : at + len(text)] == text for at, _, text in tokens)
    kinds = {text: kind for _, kind, text in tokens}
    assert kinds["// é: a comment"] in Comment and kinds["/* ü"] in Comment and kinds[" */"] in Comment
    assert kinds["__global__"] in Keyword and kinds["float"] in Keyword.Type and kinds["1.5f"] in Number
    assert kinds["threadIdx"] in Name.Builtin and kinds["f"] in Name.Function and kinds['"a//b"'] in String
