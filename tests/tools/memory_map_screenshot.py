#!/usr/bin/env python3
"""openhtp-memory-map's page as a browser draws it.

Renders the page of one context binary in headless Chromium (/usr/bin/chromium,
Debian package `chromium`), decodes the PNG here (zlib, PNG filters undone by
hand: no PIL) and checks that it is the window's size, not one colour, and
that the map itself was drawn: the fills the page uses for VTCM tensors, and
for spilled tensors when the plan spills, cover real areas, and the budget
line's red is there. A page whose SVG failed to render would show only text.

Exit 77 (CTest SKIP_RETURN_CODE) when /usr/bin/chromium is absent.
"""
import argparse
import os
import struct
import subprocess
import sys
import zlib

CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 1400, 1000
VTCM_FILL = (0x4E, 0x79, 0xA7)    # svg_map.cpp kCool[0]
SPILL_FILL = (0xE1, 0x57, 0x59)   # svg_map.cpp kWarm[0]
BUDGET_RED = (0xD6, 0x27, 0x28)


def decode_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, colour, _, _, interlace = ihdr
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError("unexpected PNG format depth=%d colour=%d interlace=%d" % (depth, colour, interlace))
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memory-map", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    if not os.access(CHROMIUM, os.X_OK):
        print("SKIP: %s not found (install the Debian package `chromium`)" % CHROMIUM)
        return 77
    os.makedirs(a.workdir, exist_ok=True)
    html_dir = os.path.join(a.workdir, "html")
    p = subprocess.run([a.memory_map, "--context_binary", a.binary, "--output_dir", html_dir], capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0:
        print("openhtp-memory-map failed:", p.stderr)
        return 1
    pages = sorted(f for f in os.listdir(html_dir) if f.endswith(".html"))
    if len(pages) != 1:
        print("expected one page, got", pages)
        return 1
    page = os.path.join(html_dir, pages[0])
    spills = 'id="spilled"' in open(page, encoding="utf-8").read()
    png = os.path.join(a.workdir, "page.png")
    if os.path.exists(png):
        os.remove(png)
    # --no-sandbox: CI runs as root; its own profile dir, so that parallel
    # runs and a user's browser never share one.
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--user-data-dir=" + os.path.join(a.workdir, "profile"), "--screenshot=" + png,
           "--window-size=%d,%d" % (WIDTH, HEIGHT), "file://" + os.path.abspath(page)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=75)
    if r.returncode != 0 or not os.path.isfile(png) or os.path.getsize(png) == 0:
        print("chromium made no screenshot (exit %d):\n%s" % (r.returncode, r.stderr[-2000:]))
        return 1
    w, h, bpp, rows = decode_png(png)
    failures = []
    if (w, h) != (WIDTH, HEIGHT):
        failures.append("screenshot is %dx%d, window was %dx%d" % (w, h, WIDTH, HEIGHT))
    counts = {}
    for row in rows:
        for x in range(0, len(row), bpp):
            px = tuple(row[x:x + 3])
            counts[px] = counts.get(px, 0) + 1
    if len(counts) < 8:
        failures.append("only %d colours: the page did not render" % len(counts))
    # The legend's swatches are 12x12 px (144) and its budget mark 24; a box
    # of the map covers several times that (the VTCM blue box of democnn's
    # input: ~700 px, more before the Winograd convolution's planned
    # workspace raised the plan's peak and so shrank the drawing's scale) and
    # the line ~700 px. Three swatches' worth (432 px) tells a
    # drawn box from the legend alone.
    if counts.get(VTCM_FILL, 0) < 432:
        failures.append("VTCM tensor fill %s covers %d px" % (VTCM_FILL, counts.get(VTCM_FILL, 0)))
    if spills and counts.get(SPILL_FILL, 0) < 1000:
        failures.append("spilled tensor fill %s covers %d px" % (SPILL_FILL, counts.get(SPILL_FILL, 0)))
    if counts.get(BUDGET_RED, 0) < 200:
        failures.append("budget line red covers %d px" % counts.get(BUDGET_RED, 0))
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("ok: %s rendered %dx%d, %d colours" % (page, w, h, len(counts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
