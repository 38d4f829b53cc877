"""What ``yamscope evaluate`` prints and draws from a tally: the report's lines and the
confusion matrices."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from models.dieface.evaluate import draw_confusion

if TYPE_CHECKING:
    from models.common.evaluate_scenes import Tally


def draw_confusions(tally: Tally, out: Path, name: str) -> list[Path]:
    """One PNG per scored attribute, ``out/<attribute>.png``."""
    paths = []
    for attribute, (matrix, names) in tally.confusions().items():
        right, scored_ = tally.right[attribute], tally.compared[attribute]
        title = f"{name} {attribute}: {right / scored_:.4f} of {scored_} matched dice"
        path = out / f"{attribute}.png"
        draw_confusion(matrix, path, title, names)
        paths.append(path)
    return paths


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2%}"


def silent_line(flags: dict[str, Any]) -> str:
    """The silent errors by cause."""
    causes = flags["silent_by_cause"].items()
    return "silent       " + "; ".join(f"{cause} {n}" for cause, n in causes)


def detection_lines(det: dict[str, Any], photos: int) -> list[str]:
    """The detection rows: the centre rule, then IoU beside it, the large dice, the dice
    found twice and the photos found exactly."""
    large, by_iou, once = det["large"], det["iou"], det["found_once_photos"]
    lines = [
        f"detection    precision {_pct(det['precision'])}  recall {_pct(det['recall'])}  "
        f"({det['matched']} of {det['labelled']} labelled dice found, {det['missed']} missed, "
        f"{det['extra']} extra; a box's centre in the other box)",
        f"             IoU ≥ {by_iou['threshold']}: precision {_pct(by_iou['precision'])}  "
        f"recall {_pct(by_iou['recall'])}; dice of {large['min_px']} px and more: precision "
        f"{_pct(large['precision'])}  recall {_pct(large['recall'])} ({large['matched']} of "
        f"{large['labelled']})",
        f"             {det['found_twice']} dice found twice; every die found once and nothing "
        f"extra on {_pct(once['share'])} of photos ({once['photos']} of {photos})",
    ]
    if det["ignored"]["labelled"]:
        lines.append(
            f"             {det['ignored']['labelled']} labelled dice of other kinds ignored "
            f"({det['ignored']['read_on_them']} boxes read on them)"
        )
    return lines


def look_lines(result: dict[str, Any]) -> list[str]:
    """The flat dice's values by colour and finish, and by kind where a set holds both."""
    by_kind = result.get("by_kind", {})
    groups = [*result["by_look"].items(), *(by_kind.items() if len(by_kind) > 1 else ())]
    return [
        f"{name:<21}value {_pct(look['value'])} of {look['dice']} flat dice, "
        f"{look['flagged']} flagged, {look['silent_errors']} silent errors"
        for name, look in groups
    ]


def report_lines(result: dict[str, Any]) -> list[str]:
    """The table ``yamscope evaluate`` prints."""
    det, flags, cocked = result["detection"], result["flags"], result["cocked"]
    lat, whole = result["latency_ms"], result["entirely_right"]
    sizes = ", ".join(f"{size} ({n})" for size, n in result["sizes"].items()) or "none"
    calibration = "calibrated on each empty tray" if result["calibrated"] else "no calibration"
    if result["calibration"]:
        calibration = "read with the calibration given"
    if result["resized"]:
        calibration += f", photos scaled to {result['resized']}"
    if result["enrolment"]:
        calibration += f", enrolled ({result['enrolment']})"
    if result.get("dice_thrown"):
        calibration += f", {result['dice_thrown']} dice thrown"
    if result["calibration_failed"]:
        calibration += f" ({result['calibration_failed']} could not be: read without)"
    lines = [
        f"dataset      {result['dataset']} ({result['format']}, {result['photos']} photos)",
        f"reading      model dieface {result['model']['version']} ({result['model']['path']}; "
        f"{result['model']['check']}), "
        f"detector {result['detector']}, cocked-die model {result['cocked_model']['version']}"
        + ("" if result["calibrated"] else " (not asked)")
        + f", kinds {','.join(result['kinds'])}, {calibration}",
        f"photo size   {sizes}",
        *detection_lines(det, result["photos"]),
    ]
    for attribute, score in result["attributes"].items():
        dice = "flat dice" if attribute == "value" and cocked["labelled"] else "dice"
        large = score.get("large")
        at_size = (
            f"; dice of {large['min_px']} px and more: {_pct(large['accuracy'])} "
            f"({large['right']} of {large['scored']})"
            if large
            else ""
        )
        lines.append(
            f"{attribute:<12} {_pct(score['accuracy'])}  "
            f"({score['right']} of {score['scored']} matched {dice}{at_size})"
        )
    lines += look_lines(result)
    by_flag = ", ".join(f"{k} {v}" for k, v in sorted(flags["by_flag"].items())) or "none"
    lines += [
        f"whole photos {_pct(whole['share'])} entirely right ({whole['photos']} of "
        f"{result['photos']})",
        f"flags        {flags['flagged']} of {det['read']} read dice flagged "
        f"({_pct(flags['share_of_read'])}; {by_flag}); {flags['deserved']} deserved "
        f"(precision {_pct(flags['precision'])}); {flags['silent_errors']} silent errors "
        f"({_pct(flags['silent_share_of_found'])} of the dice found)",
        silent_line(flags),
        f"cocked       {cocked['labelled']} labelled, {cocked['found']} found, "
        f"{cocked['flagged']} flagged ({cocked['flagged_cocked']} as cocked)",
        f"latency      median {lat['median']:.1f} ms, p95 {lat['p95']:.1f} ms, max "
        f"{lat['max']:.1f} ms per photo (one thread; pin a core with taskset -c 0)",
    ]
    if result["unreadable"]:
        lines.append(f"unreadable   {len(result['unreadable'])}: {result['unreadable'][0]} ...")
    return lines
