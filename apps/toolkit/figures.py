"""The one figure style of every tool (apps/plot, bench/cluster-study, apps/summa/compare-panels.py): markers
and line styles that read in greyscale, hatched bars, error bars whose meaning is said, the time breakdown
with communication calls, wait and other kept apart, and a footer naming what the marks are, the machine and
the date. Callers hand in matplotlib's pyplot (they import it, so this module needs nothing)."""

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
LINES = ("-", "--", ":", "-.")
HATCHES = ("", "//", "..", "xx", "\\\\", "oo")
NEGATIVE_TOLERANCE = 1e-3  # 'other' below -0.1 % of the total is flagged, not hidden
BREAKDOWN_NAMES = ("compute", "communication calls", "wait", "other (total - compute - comm)")


def style(index):
    """Marker and line style of the index-th series: distinct in greyscale and without colour."""
    return {"marker": MARKERS[index % len(MARKERS)], "linestyle": LINES[index % len(LINES)]}


def errorbar_line(axes, index, xs, ys, lows, highs, label):
    """One series with error bars from lows..highs (None where unknown: no bar there)."""
    below = [y - low if low is not None else 0.0 for y, low in zip(ys, lows)]
    above = [high - y if high is not None else 0.0 for y, high in zip(ys, highs)]
    axes.errorbar(xs, ys, yerr=[below, above], capsize=3, label=label, **style(index))


def breakdown_stacks(totals, compute, comm, wait):
    """The stacked parts per bar: compute, communication calls (comm - wait), wait and other = total -
    compute - comm (the drivers' definition total = compute + comm + other). Returns (stacks, flagged):
    stacks [(name, values)] in BREAKDOWN_NAMES order, flagged the indices whose parts exceed their total by
    more than the tolerance (their 'other' is drawn as 0)."""
    compute = [c or 0.0 for c in compute]
    comm = [c or 0.0 for c in comm]
    wait = [min(w or 0.0, c) for w, c in zip(wait, comm)]
    other = [t - a - c for t, a, c in zip(totals, compute, comm)]
    flagged = [i for i, (o, t) in enumerate(zip(other, totals)) if o < -NEGATIVE_TOLERANCE * t]
    values = (compute, [c - w for c, w in zip(comm, wait)], wait, [max(0.0, o) for o in other])
    return list(zip(BREAKDOWN_NAMES, values)), flagged


def draw_stacks(axes, stacks, totals, total_label, lows=None, highs=None):
    """Hatched stacked bars at 0, 1, ...; the totals marked, with min..max error bars when given. Returns the
    stack heights."""
    positions = range(len(totals))
    bottom = [0.0] * len(totals)
    for index, (name, values) in enumerate(stacks):
        axes.bar(positions, values, bottom=bottom, label=name, hatch=HATCHES[index % len(HATCHES)],
                 edgecolor="black", linewidth=0.5)
        bottom = [b + v for b, v in zip(bottom, values)]
    axes.scatter(positions, totals, color="black", marker="_", s=400, label=total_label, zorder=3)
    if lows is not None and highs is not None:
        axes.errorbar(positions, totals, yerr=[[t - low for t, low in zip(totals, lows)],
                                               [high - t for t, high in zip(totals, highs)]],
                      fmt="none", ecolor="black", capsize=4, zorder=4)
    return bottom


def footer_text(note, hosts, dates):
    """'NOTE; host H; DATE': what the marks are, the machine(s) and the day(s) the runs were made."""
    parts = [note]
    if hosts:
        parts.append("host " + ", ".join(hosts))
    if dates:
        parts.append(", ".join(dates))
    return "; ".join(parts)


def finish(figure, axes, title, note, hosts, dates):
    """Title, the footer (footer_text) and the layout every figure shares."""
    axes.set_title(title, fontsize="medium")
    figure.text(0.01, 0.01, footer_text(note, hosts, dates), fontsize="x-small", color="0.3")
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    return figure
