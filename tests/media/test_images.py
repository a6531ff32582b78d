"""Uploaded images: only clean PNG/JPEG/WebP survive, bombs and junk are refused with a reason."""

from __future__ import annotations

import io
import struct
import zlib

import httpx
import pytest
from fastapi import FastAPI, Request, Response
from PIL import Image

from app import limits
from app.media.images import ImageRejected, process_upload, reencode_image
from app.web.media import image_response


def encoded(fmt: str, size: tuple[int, int] = (40, 30), **options: object) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format=fmt, **options)
    return out.getvalue()


@pytest.mark.parametrize(
    ("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp")]
)
def test_each_accepted_format_comes_back_in_its_own_format(fmt: str, mime: str) -> None:
    stored = reencode_image(encoded(fmt))
    assert (stored.mime, stored.width, stored.height) == (mime, 40, 30)
    again = Image.open(io.BytesIO(stored.data))
    assert again.format == fmt
    pixel = again.getpixel((5, 5))
    assert isinstance(pixel, tuple)
    assert pixel[0] > 150  # the picture itself survives
    assert len(stored.etag) == 32


def test_metadata_and_trailing_bytes_are_dropped_and_orientation_applied() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to show
    exif[0x010F] = "SpyCam"  # Make
    raw = encoded("JPEG", (40, 30), exif=exif.tobytes()) + b"TRAILING-SECRET"
    stored = reencode_image(raw)
    assert b"SpyCam" not in stored.data
    assert b"TRAILING-SECRET" not in stored.data
    assert (stored.width, stored.height) == (30, 40)
    assert not Image.open(io.BytesIO(stored.data)).getexif()


def test_png_text_chunks_are_dropped() -> None:
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text("Comment", "the GM's secret plan")
    stored = reencode_image(encoded("PNG", pnginfo=info))
    assert b"secret plan" not in stored.data


def png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` × ``height`` (a decompression bomb)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * 1024, 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)


@pytest.mark.parametrize("size", [(50_000, 50_000), (9000, 10), (7000, 7000)])
def test_a_bomb_is_refused_from_its_header(size: tuple[int, int]) -> None:
    with pytest.raises(ImageRejected) as refused:
        reencode_image(png_declaring(*size))
    assert refused.value.status == 422
    assert "8192" in refused.value.message


def test_junk_other_formats_damaged_files_and_oversize_are_refused() -> None:
    for raw in (b"", b"not an image at all", encoded("GIF"), encoded("BMP")):
        with pytest.raises(ImageRejected) as refused:
            reencode_image(raw)
        assert refused.value.status == 422
    truncated = encoded("PNG", (300, 300))[:200]
    with pytest.raises(ImageRejected) as damaged:
        reencode_image(truncated)
    assert damaged.value.status == 422
    with pytest.raises(ImageRejected) as big:
        reencode_image(b"\x89PNG" + b"\x00" * limits.IMAGE_UPLOAD_BYTES)
    assert big.value.status == 413


async def test_processing_runs_in_a_worker_thread() -> None:
    stored = await process_upload(encoded("PNG"))
    assert stored.mime == "image/png"


async def test_the_answer_caches_privately_and_revalidates_by_etag() -> None:
    stored = reencode_image(encoded("PNG"))
    app = FastAPI()

    @app.get("/img")
    async def img(request: Request) -> Response:
        return image_response(request, stored.data, stored.mime, stored.etag)

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        first = await client.get("/img")
        assert first.status_code == 200
        assert first.content == stored.data
        assert first.headers["content-type"] == "image/png"
        assert first.headers["cache-control"].startswith("private")
        again = await client.get("/img", headers={"If-None-Match": first.headers["etag"]})
        assert again.status_code == 304
        assert again.content == b""
