"""kernel_tuner is loaded without torch (seconds on a machine that has it), and torch stays
importable afterwards for a user's own functions."""

import subprocess
import sys
import textwrap


def test_kernel_tuner_loads_without_importing_torch_and_torch_stays_importable(tmp_path):
    fake = tmp_path / "torch"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "import os\nopen(os.environ['MARK'], 'a').write('imported\\n')\nTensor = object\n"
    )
    mark = tmp_path / "mark"
    code = textwrap.dedent("""
        import sys
        from kt_tui.gpu.ktimport import load
        load()
        import kernel_tuner.util, kernel_tuner.core
        assert 'torch' not in sys.modules, 'torch was imported by kernel_tuner'
        import torch  # a user's verify function may still use it
        print('ok', torch.Tensor)
    """)
    env = {"PYTHONPATH": f"{tmp_path}:{'.'}", "MARK": str(mark), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ok" in out.stdout
    assert mark.read_text() == "imported\n"  # once: by the user's import, not by kernel_tuner's


def test_kernel_tuner_loads_without_jsonschema_until_it_is_used():
    code = textwrap.dedent("""
        import sys
        from kt_tui.gpu.ktimport import load
        load()
        import kernel_tuner.file_utils
        assert 'jsonschema.validators' not in sys.modules, 'jsonschema was loaded with kernel_tuner'
        import jsonschema
        jsonschema.validate({'a': 1}, {'type': 'object'})  # loads on first use and works
        from jsonschema import Draft7Validator
        try:
            jsonschema.validate({'a': 1}, {'type': 'array'})
        except jsonschema.ValidationError:
            print('ok', Draft7Validator.__name__)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok Draft7Validator"
