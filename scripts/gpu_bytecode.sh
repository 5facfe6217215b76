# Source me on the GPU box (after .gpubox/setup.sh): bytecode for kt_tui, the staged wheels and the image's
# own packages that a session imports, as an installed environment has it. The box sets
# PYTHONDONTWRITEBYTECODE=1; where the image's site-packages cannot be written, every package's bytecode
# goes under PYTHONPYCACHEPREFIX instead.
IMAGE_PKGS=$(python -c "import os, numpy, scipy, cuda.bindings, cuda.pathfinder; print(' '.join(os.path.dirname(m.__file__) for m in (numpy, scipy, cuda.bindings, cuda.pathfinder)))" 2>/dev/null)
BYTECODE="in place"
for d in $IMAGE_PKGS; do [ -w "$d" ] || BYTECODE="prefix"; done
[ "$BYTECODE" = prefix ] && export PYTHONPYCACHEPREFIX=/tmp/pyc
python -m compileall -q -j 0 /tmp/site kt_tui $IMAGE_PKGS > /dev/null 2>&1
BYTECODE="$BYTECODE: /tmp/site kt_tui $IMAGE_PKGS"
