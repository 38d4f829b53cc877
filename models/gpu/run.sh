#!/bin/bash
# One session on a borrowed GPU machine: the dice detector and the die-face net trained side
# by side until a deadline, from the weights and data `python -m models.gpu.pack` put in
# .gpu/ (carried there). Results land in $OUT (the device tool brings that folder back).
#   BUDGET=500 bash models/gpu/run.sh        # seconds, all included; DEVICE=cpu to try it here
#   SCENES=0 trains the detector alone; DET_MINUTES, DET_LR, DET_SYNTH, DET_WORKERS tune it
set -u
export PYTHONUNBUFFERED=1
START=$(date +%s)
BUDGET=${BUDGET:-450}
DEADLINE=$((START + BUDGET))
DEVICE=${DEVICE:-cuda}
OUTDIR=${OUT:-/tmp/out}
RUNS=${RUNS:-/tmp/runs}
mkdir -p "$OUTDIR" "$RUNS/detector"
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader || true
python3 -c "import torch, cv2, numpy; print(torch.__version__, cv2.__version__, numpy.__version__)"
python3 -m models.gpu.unpack .gpu || exit 1
# rendered scene folders packed with --scenes: both runs train on them (none: the arrays stay empty)
RENDERED=()
DET_RENDERED=()
if [ -s data/scenes/folders.txt ]; then
  while read -r folder; do RENDERED+=(--rendered "$folder"); DET_RENDERED+=(--scenes "$folder"); done < data/scenes/folders.txt
fi
# the detector's clock starts after its synthetic scenes are drawn (~40 s)
python3 -m models.detector.train --device "$DEVICE" --workers "${DET_WORKERS:-7}" --batch 64 \
  --crop 256 --steps 600 --epochs 200 --synth "${DET_SYNTH:-3000}" --lr "${DET_LR:-3e-3}" --threads 4 \
  --minutes "${DET_MINUTES:-$(awk "BEGIN{print ($BUDGET - 100) / 60}")}" --out "$RUNS/detector" \
  --weights .gpu/detector.pt ${DET_RENDERED[@]+"${DET_RENDERED[@]}"} > "$RUNS/detector.log" 2>&1 &
PIDS=($!)
[ "${SCENES:-14000}" -gt 0 ] && python3 -m models.gpu.dieface --deadline $((DEADLINE - 25)) --scenes "${SCENES:-14000}" \
  --workers "${FACE_WORKERS:-12}" --out "$RUNS/dieface" --epochs "${EPOCHS:-60}" \
  --lr "${LR:-2e-3}" --device "$DEVICE" ${RENDERED[@]+"${RENDERED[@]}"} > "$OUTDIR/dieface.log" 2>&1 &
[ "${SCENES:-14000}" -gt 0 ] && PIDS+=($!)
alive() {
  for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && return 0; done
  return 1
}
bring_back() {
  tr '\r' '\n' < "$RUNS/detector.log" | grep -v 'it/s\|s/it\|^ *$' > "$OUTDIR/detector.log"
  cp -f "$RUNS/dieface/best.pt" "$OUTDIR/dieface-best.pt" 2>/dev/null
  cp -f "$RUNS/dieface/summary.json" "$OUTDIR/dieface-summary.json" 2>/dev/null
  cp -f "$RUNS/detector/best.pt" "$OUTDIR/detector-best.pt" 2>/dev/null
  last=$(find "$RUNS/detector" -name 'epoch-*.pt' | sort | tail -1)
  [ -n "$last" ] && cp -f "$last" "$OUTDIR/detector-last.pt"
  cp -f "$RUNS/detector/summary.json" "$OUTDIR/detector-summary.json" 2>/dev/null
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
tail -5 "$OUTDIR/detector.log"
[ -f "$OUTDIR/dieface.log" ] && tail -3 "$OUTDIR/dieface.log"
true
