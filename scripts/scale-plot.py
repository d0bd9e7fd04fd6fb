#!/usr/bin/env python3
"""Draws the results of `scripts/bench --scale` as a PNG: CPU time and peak
memory of each command against catalog size, one panel each.

    scripts/scale-plot.py RESULTS.tsv OUT.png

RESULTS.tsv has one line per measurement: size in MB, command, wall seconds,
peak RSS in MB, CPU seconds (tab-separated). The plot shows CPU time (user +
system), which other work on a shared machine disturbs far less than wall time. Python's standard library only: the PNG is written
with zlib and struct, the text with the small bitmap font below.
"""

import math
import struct
import sys
import zlib

# A 5x7 bitmap font: the characters the plot writes.
FONT = {
    "0": ".###.|#...#|#..##|#.#.#|##..#|#...#|.###.",
    "1": "..#..|.##..|..#..|..#..|..#..|..#..|.###.",
    "2": ".###.|#...#|....#|...#.|..#..|.#...|#####",
    "3": "#####|...#.|..#..|...#.|....#|#...#|.###.",
    "4": "...#.|..##.|.#.#.|#..#.|#####|...#.|...#.",
    "5": "#####|#....|####.|....#|....#|#...#|.###.",
    "6": "..##.|.#...|#....|####.|#...#|#...#|.###.",
    "7": "#####|....#|...#.|..#..|.#...|.#...|.#...",
    "8": ".###.|#...#|#...#|.###.|#...#|#...#|.###.",
    "9": ".###.|#...#|#...#|.####|....#|...#.|.##..",
    "C": ".###.|#...#|#....|#....|#....|#...#|.###.",
    "P": "####.|#...#|#...#|####.|#....|#....|#....",
    "U": "#...#|#...#|#...#|#...#|#...#|#...#|.###.",
    ".": ".....|.....|.....|.....|.....|.##..|.##..",
    "-": ".....|.....|.....|#####|.....|.....|.....",
    "/": ".....|....#|...#.|..#..|.#...|#....|.....",
    ":": ".....|.##..|.##..|.....|.##..|.##..|.....",
    "(": "...#.|..#..|.#...|.#...|.#...|..#..|...#.",
    ")": ".#...|..#..|...#.|...#.|...#.|..#..|.#...",
    " ": ".....|.....|.....|.....|.....|.....|.....",
    "a": ".....|.....|.###.|....#|.####|#...#|.####",
    "b": "#....|#....|#.##.|##..#|#...#|#...#|####.",
    "c": ".....|.....|.###.|#....|#....|#...#|.###.",
    "d": "....#|....#|.##.#|#..##|#...#|#...#|.####",
    "e": ".....|.....|.###.|#...#|#####|#....|.###.",
    "f": "..##.|.#..#|.#...|###..|.#...|.#...|.#...",
    "g": ".....|.####|#...#|#...#|.####|....#|.###.",
    "h": "#....|#....|#.##.|##..#|#...#|#...#|#...#",
    "i": "..#..|.....|.##..|..#..|..#..|..#..|.###.",
    "j": "...#.|.....|..##.|...#.|...#.|#..#.|.##..",
    "k": "#....|#....|#..#.|#.#..|##...|#.#..|#..#.",
    "l": ".##..|..#..|..#..|..#..|..#..|..#..|.###.",
    "m": ".....|.....|##.#.|#.#.#|#.#.#|#...#|#...#",
    "n": ".....|.....|#.##.|##..#|#...#|#...#|#...#",
    "o": ".....|.....|.###.|#...#|#...#|#...#|.###.",
    "p": ".....|####.|#...#|#...#|####.|#....|#....",
    "q": ".....|.####|#...#|#...#|.####|....#|....#",
    "r": ".....|.....|#.##.|##..#|#....|#....|#....",
    "s": ".....|.....|.###.|#....|.###.|....#|####.",
    "t": ".#...|.#...|###..|.#...|.#...|.#..#|..##.",
    "u": ".....|.....|#...#|#...#|#...#|#..##|.##.#",
    "v": ".....|.....|#...#|#...#|#...#|.#.#.|..#..",
    "w": ".....|.....|#...#|#...#|#.#.#|#.#.#|.#.#.",
    "x": ".....|.....|#...#|.#.#.|..#..|.#.#.|#...#",
    "y": ".....|#...#|#...#|#...#|.####|....#|.###.",
    "z": ".....|.....|#####|...#.|..#..|.#...|#####",
    "B": "####.|#...#|#...#|####.|#...#|#...#|####.",
    "G": ".###.|#...#|#....|#.###|#...#|#...#|.####",
    "M": "#...#|##.##|#.#.#|#.#.#|#...#|#...#|#...#",
    "R": "####.|#...#|#...#|####.|#.#..|#..#.|#...#",
    "S": ".####|#....|#....|.###.|....#|....#|####.",
}
SCALE = 2  # each font pixel is SCALE x SCALE image pixels
ADVANCE = 6 * SCALE
HEIGHT = 7 * SCALE

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
GRID = (225, 225, 225)
COLORS = {"validate": (31, 119, 180), "render -o json": (255, 127, 14), "render -o yaml": (44, 160, 44)}


class Canvas:
    def __init__(self, width, height):
        self.width, self.height = width, height
        self.pixels = bytearray(WHITE * (width * height))

    def set(self, x, y, color):
        if 0 <= x < self.width and 0 <= y < self.height:
            i = 3 * (y * self.width + x)
            self.pixels[i : i + 3] = bytes(color)

    def rect(self, x0, y0, x1, y1, color):
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                self.set(x, y, color)

    def line(self, x0, y0, x1, y1, color, width=1):
        # Bresenham, thickened by drawing a small square at every step.
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        half = width // 2
        while True:
            self.rect(x0 - half, y0 - half, x0 - half + width - 1, y0 - half + width - 1, color)
            if x0 == x1 and y0 == y1:
                break
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def text(self, x, y, text, color=BLACK):
        for n, ch in enumerate(text):
            rows = FONT[ch].split("|")
            for row, bits in enumerate(rows):
                for col, bit in enumerate(bits):
                    if bit == "#":
                        px, py = x + n * ADVANCE + col * SCALE, y + row * SCALE
                        self.rect(px, py, px + SCALE - 1, py + SCALE - 1, color)

    def png(self):
        raw = b"".join(
            b"\x00" + bytes(self.pixels[3 * y * self.width : 3 * (y + 1) * self.width])
            for y in range(self.height)
        )

        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def ticks(high):
    """Round tick values from 0 to at least `high`, about five of them."""
    raw = high / 5 if high > 0 else 1
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    count = math.ceil(high / step - 1e-9)
    return [i * step for i in range(count + 1)], step


def label(value, step):
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    return f"{value:.{decimals}f}"


def panel(canvas, left, top, width, height, title, series, xmax):
    """One chart: `series` maps a command to [(x, y)]; the axes start at 0."""
    ymax = max(y for points in series.values() for _, y in points)
    yticks, ystep = ticks(ymax)
    xticks, xstep = ticks(xmax)
    xscale = width / xticks[-1]
    yscale = height / yticks[-1]

    def at(x, y):
        return left + round(x * xscale), top + height - round(y * yscale)

    for value in yticks:
        _, py = at(0, value)
        canvas.line(left, py, left + width, py, GRID)
        text = label(value, ystep)
        canvas.text(left - 8 - len(text) * ADVANCE, py - HEIGHT // 2, text)
    for value in xticks:
        px, _ = at(value, 0)
        canvas.line(px, top, px, top + height, GRID)
        text = label(value, xstep)
        canvas.text(px - len(text) * ADVANCE // 2, top + height + 8, text)
    canvas.line(left, top, left, top + height, BLACK)
    canvas.line(left, top + height, left + width, top + height, BLACK)
    canvas.text(left + (width - len(title) * ADVANCE) // 2, top - HEIGHT - 10, title)
    xlabel = "catalog size (GB)"
    canvas.text(left + (width - len(xlabel) * ADVANCE) // 2, top + height + 14 + HEIGHT, xlabel)
    for command, points in series.items():
        color = COLORS[command]
        pixels = [at(x, y) for x, y in points]
        for (x0, y0), (x1, y1) in zip(pixels, pixels[1:]):
            canvas.line(x0, y0, x1, y1, color, width=2)
        for x, y in pixels:
            canvas.rect(x - 3, y - 3, x + 3, y + 3, color)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scale-plot.py RESULTS.tsv OUT.png")
    times, memory = {}, {}
    for line in open(sys.argv[1]):
        if not line.strip():
            continue
        size_mb, command, _wall, rss_mb, cpu = line.rstrip("\n").split("\t")
        gb = float(size_mb) / 1000
        times.setdefault(command, []).append((gb, float(cpu)))
        memory.setdefault(command, []).append((gb, float(rss_mb)))
    for series in (times, memory):
        for points in series.values():
            points.sort()
    xmax = max(x for points in times.values() for x, _ in points)
    canvas = Canvas(960, 420)
    panel(canvas, 80, 40, 360, 280, "CPU time (s)", times, xmax)
    panel(canvas, 570, 40, 360, 280, "peak RSS (MB)", memory, xmax)
    x = 80
    for command in times:
        canvas.rect(x, 388, x + 24, 391, COLORS[command])
        canvas.text(x + 32, 383, command)
        x += 32 + len(command) * ADVANCE + 40
    with open(sys.argv[2], "wb") as out:
        out.write(canvas.png())


if __name__ == "__main__":
    main()
