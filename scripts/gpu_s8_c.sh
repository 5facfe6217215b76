#!/usr/bin/env bash
# Session 8, call C (2-GPU host): nvcuda's whole CLI sessions (300 and all 767 configurations, --gpus 1 and 2),
# A/B in one call, two rounds interleaved: v0 = main as it was (s8-head.tar: `git archive 9bd5751 kt_tui`, made
# for the call and not kept), v1 = this session's code
# without the compile processes' NVRTC warm-up, v2 = this session's code. Then the GPU tests.
set -u
source scripts/gpu_bytecode.sh
echo "== bytecode: $BYTECODE" > $OUT/c.txt
for v in v0 v1 v2; do rm -rf /tmp/$v && mkdir -p /tmp/$v && cp -r benchmarks scripts examples tests pyproject.toml /tmp/$v/; done
tar xf s8-head.tar -C /tmp/v0
cp -r kt_tui /tmp/v1/ && cp -r kt_tui /tmp/v2/
sed -i 's/^    threading.Thread(target=warm_nvrtc, name="kt-tui-warm", daemon=True).start()/    pass/' /tmp/v1/kt_tui/gpu/worker/pools.py
grep -c "target=warm_nvrtc" /tmp/v1/kt_tui/gpu/worker/pools.py /tmp/v2/kt_tui/gpu/worker/pools.py >> $OUT/c.txt
for v in v0 v1 v2; do python -m compileall -q -j 0 /tmp/$v/kt_tui > /dev/null 2>&1; done
export KT_TUI_DATA_DIR=/tmp/kt-data
for round in 1 2; do
  for v in v0 v1 v2; do
    echo "== round $round $v" >> $OUT/c.txt
    (cd /tmp/$v && KT_TUI_BENCH_TRACES=/tmp/trc/$round-$v timeout 100 python benchmarks/multigpu_cli.py --configs 300,all --gpus 2 \
      --timeout 60 --backend nvcuda --out /tmp/c-$round-$v.json 2>&1 | grep -E "gpus[12]:" ) >> $OUT/c.txt
  done
done
python - >> $OUT/c.txt <<'PY'
import collections, json
rows = collections.defaultdict(list)
for r in (1, 2):
    for v in ("v0", "v1", "v2"):
        try:
            for s in json.load(open(f"/tmp/c-{r}-{v}.json"))["sessions"]:
                rows[(s["label"], v)].append(s["wall_s"])
        except (OSError, ValueError, KeyError) as e:
            print("no json", r, v, e)
print("session      variant  wall s (round 1, round 2)")
for (label, v), w in sorted(rows.items()):
    print(f"{label:12} {v:7}  {w}")
PY
{ echo "== GPU tests"; timeout 200 python -m pytest -q -p no:cacheprovider -m gpu tests/gpu tests/engine 2>&1 | tail -8; } >> $OUT/c.txt
tar czf $OUT/c-traces.tgz -C /tmp trc 2>/dev/null
cp /tmp/c-*.json $OUT/ 2>/dev/null
cat $OUT/c.txt
