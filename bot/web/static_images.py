"""The site's icons and its front page's preview image, drawn once and shipped in
``static/`` (``python -m bot.web.static_images`` draws them again): the favicon (ICO,
16-48 px, and SVG), the apple-touch icon (180 px), the web manifest's icons (192 and
512 px) and ``og.png`` (1200 x 630, the front page's link preview). The mark: three
rising bars on the accent colour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

STATIC = Path(__file__).with_name("static")
ACCENT = "#d9480f"
#: The mark on a 64-unit square: its bars as (x, y, width, height).
BARS = ((14, 34, 9, 16), (27.5, 22, 9, 28), (41, 12, 9, 38))
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
    f'<rect width="64" height="64" rx="14" fill="{ACCENT}"/>'
    + "".join(
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="2" fill="#fff"/>'
        for x, y, w, h in BARS
    )
    + "</svg>\n"
)


def mark(size: int, *, rounded: bool = True) -> Any:
    """The mark as a Pillow image ``size`` px square."""
    from PIL import Image, ImageDraw

    scale = 4  # drawn large, then scaled down: smooth edges
    big = size * scale
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    unit = big / 64
    radius = int(14 * unit) if rounded else 0
    draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=radius, fill=ACCENT)
    for x, y, w, h in BARS:
        box = (x * unit, y * unit, (x + w) * unit, (y + h) * unit)
        draw.rounded_rectangle(box, radius=int(2 * unit), fill="#ffffff")
    return image.resize((size, size), Image.Resampling.LANCZOS)


def preview(path: Path) -> None:
    """The front page's link preview: the mark, the name and what it is."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch, Rectangle

    from ..render.cards import FAMILY, register_fonts

    register_fonts()
    figure = Figure(figsize=(12, 6.3), dpi=100)
    FigureCanvasAgg(figure)
    figure.patch.set_facecolor("#0d1117")
    figure.add_artist(Rectangle((0, 0.975), 1, 0.025, transform=figure.transFigure,
                                color=ACCENT, lw=0))  # fmt: skip
    left, bottom, side = 0.07, 0.36, 0.2
    figure.add_artist(
        FancyBboxPatch((left, bottom), side * 0.525, side, transform=figure.transFigure,
                       boxstyle="round,pad=0,rounding_size=0.02", color=ACCENT, lw=0)
    )  # fmt: skip
    for x, y, w, h in BARS:
        figure.add_artist(
            Rectangle((left + x / 64 * side * 0.525, bottom + (64 - y - h) / 64 * side),
                      w / 64 * side * 0.525, h / 64 * side, transform=figure.transFigure,
                      color="#ffffff", lw=0)
        )  # fmt: skip
    text: dict[str, Any] = {"family": FAMILY, "color": "#e6edf3", "parse_math": False}
    figure.text(0.2, 0.52, "Benchboard", fontsize=64, weight="bold", va="center", **text)
    figure.text(0.2, 0.38, "Leaderboards of LLM benchmark results", fontsize=28,
                va="center", **{**text, "color": "#8d96a0"})  # fmt: skip
    figure.text(0.07, 0.14, "Paste a model's output to the bot, get its score, share the card.",
                fontsize=22, va="center", **{**text, "color": "#8d96a0"})  # fmt: skip
    figure.savefig(path, format="png", dpi=100, metadata={"Software": None},
                   facecolor="#0d1117")  # fmt: skip


def main() -> None:
    (STATIC / "icon.svg").write_text(SVG)
    icon = mark(256)
    icon.save(STATIC / "favicon.ico", sizes=[(16, 16), (32, 32), (48, 48)])
    mark(180, rounded=False).save(STATIC / "apple-touch-icon.png", optimize=True)
    for size in (192, 512):
        mark(size).save(STATIC / f"icon-{size}.png", optimize=True)
    preview(STATIC / "og.png")


if __name__ == "__main__":
    main()
