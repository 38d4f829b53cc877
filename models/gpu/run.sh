#!/bin/bash
# One session on a borrowed GPU machine: the dice detector and the die-face net trained side
# by side until a deadline, from the weights and data `python -m models.gpu.pack` put in
# .gpu/ (carried there). Results land in $OUT (the device tool brings that folder back).
#   BUDGET=500 bash models/gpu/run.sh        # seconds, all included; DEVICE=cpu to try it here
#   SCENES=0 trains the detector alone; DET_MINUTES, DET_SYNTH, DET_WORKERS (shared out among
#   the runs) tune it, DET_LRS="1e-3 3e-3" trains one run per learning rate side by side
set -u
export PYTHONUNBUFFERED=1
START=$(date +%s)
BUDGET=${BUDGET:-450}
DEADLINE=$((START + BUDGET))
DEVICE=${DEVICE:-cuda}
OUTDIR=${OUT:-/tmp/out}
RUNS=${RUNS:-/tmp/runs}
mkdir -p "$OUTDIR" "$RUNS"
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader || true
python3 -c "import torch, cv2, numpy; print(torch.__version__, cv2.__version__, numpy.__version__)"
python3 -m models.gpu.unpack .gpu || exit 1
# rendered scene folders packed with --scenes: both runs train on them (none: the arrays stay empty)
RENDERED=()
DET_RENDERED=()
if [ -s data/scenes/folders.txt ]; then
  while read -r folder; do RENDERED+=(--rendered "$folder"); DET_RENDERED+=(--scenes "$folder"); done < data/scenes/folders.txt
fi
# the detector starts from the packed checkpoint, else from the shipped model
DET_START="--weights .gpu/detector.pt"
[ -f .gpu/detector.pt ] || DET_START="--from-onnx models/dicefind.onnx"
# one detector run per learning rate in DET_LRS, side by side, the workers shared out;
read -r -a LRS <<< "${DET_LRS:-3e-3}"
python3 -c "from models.detector.data import *
load_synth('train', SYNTH_TRAIN_SEED, ${DET_SYNTH:-3000}, ${DET_WORKERS:-7})
load_synth('valid', SYNTH_VALID_SEED, 100, ${DET_WORKERS:-7})" || exit 1  # once, not per run
PIDS=()
for lr in "${LRS[@]}"; do
  python3 -m models.detector.train --device "$DEVICE" --batch 64 --crop 256 --steps 600 \
    --workers $(( ${DET_WORKERS:-7} / ${#LRS[@]} )) --epochs 200 --synth "${DET_SYNTH:-3000}" \
    --lr "$lr" --threads 4 --out "$RUNS/detector-$lr" \
    --minutes "${DET_MINUTES:-$(awk "BEGIN{print ($BUDGET - 100) / 60}")}" \
    $DET_START ${DET_RENDERED[@]+"${DET_RENDERED[@]}"} > "$RUNS/detector-$lr.log" 2>&1 &
  PIDS+=($!)
done
[ "${SCENES:-14000}" -gt 0 ] && python3 -m models.gpu.dieface --deadline $((DEADLINE - 25)) --scenes "${SCENES:-14000}" \
  --workers "${FACE_WORKERS:-12}" --out "$RUNS/dieface" --epochs "${EPOCHS:-60}" \
  --lr "${LR:-2e-3}" --device "$DEVICE" ${RENDERED[@]+"${RENDERED[@]}"} > "$OUTDIR/dieface.log" 2>&1 &
[ "${SCENES:-14000}" -gt 0 ] && PIDS+=($!)
alive() {
  for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && return 0; done
  return 1
}
bring_back() {
  for lr in "${LRS[@]}"; do
    mkdir -p "$OUTDIR/detector-$lr"
    tr '\r' '\n' < "$RUNS/detector-$lr.log" | grep -v 'it/s\|s/it\|^ *$' > "$OUTDIR/detector-$lr/log"
    cp -f "$RUNS/detector-$lr/best.pt" "$RUNS/detector-$lr/summary.json" "$OUTDIR/detector-$lr/" 2>/dev/null
    last=$(find "$RUNS/detector-$lr" 2>/dev/null -name 'epoch-*.pt' | sort | tail -1)
    [ -n "$last" ] && cp -f "$last" "$OUTDIR/detector-$lr/last.pt"
  done
  cp -f "$RUNS/dieface/best.pt" "$OUTDIR/dieface-best.pt" 2>/dev/null
  cp -f "$RUNS/dieface/summary.json" "$OUTDIR/dieface-summary.json" 2>/dev/null
}
while alive; do
  sleep 15
  bring_back
  echo "t=$(($(date +%s) - START))s load $(cut -d' ' -f1 /proc/loadavg)"
  if [ "$(date +%s)" -gt $((DEADLINE + 40)) ]; then
    echo "past the deadline: stopping"
    pkill -f models.detector.train
    pkill -f models.gpu.dieface
  fi
done
bring_back
for lr in "${LRS[@]}"; do tail -3 "$OUTDIR/detector-$lr/log"; done
[ -f "$OUTDIR/dieface.log" ] && tail -3 "$OUTDIR/dieface.log"
true
