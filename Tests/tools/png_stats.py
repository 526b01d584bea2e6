#!/usr/bin/env python3
"""Prints a PNG's width, height and number of distinct pixel colours: `png_stats.py FILE` -> `W H COLOURS`.

The browser tests use it to tell a rendered page from a blank one. Standard library only (zlib); handles the
8-bit greyscale, RGB, grey+alpha and RGBA images a browser's screenshot is, with every row filter.
"""
import struct
import sys
import zlib


def main(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    offset, idat = 8, b""
    width = height = depth = colour = None
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind = data[offset + 4:offset + 8]
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None:
        sys.exit(f"{path}: unsupported PNG (bit depth {depth}, colour type {colour})")
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    position = 0
    for _ in range(height):
        kind = raw[position]
        row = bytearray(raw[position + 1:position + 1 + stride])
        position += 1 + stride
        for i in range(stride):
            left = row[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                row[i] = (row[i] + left) & 0xFF
            elif kind == 2:
                row[i] = (row[i] + up) & 0xFF
            elif kind == 3:
                row[i] = (row[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - corner
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                row[i] = (row[i] + predictor) & 0xFF
        for i in range(0, stride, channels):
            colours.add(bytes(row[i:i + channels]))
        previous = row
    print(width, height, len(colours))


if __name__ == "__main__":
    main(sys.argv[1])
