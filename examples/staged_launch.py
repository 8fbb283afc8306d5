"""A coin launch with a big image (up to 5 MiB) through a staged upload, with the SDK.

    .venv/bin/python -m examples.staged_launch --token <app_at_... with coin:create> big.png

`upload_image` asks `POST /partner/v1/uploads` for a presigned S3 POST and sends the file straight
to S3 (on the devstack: moto on 127.0.0.1), so the image never passes through API Gateway and
Lambda, whose 6 MB request limit a 5 MiB multipart body (base64-encoded on the way) would break.
The launch then names the upload: `imageUploadId`, once, by the same user, within 15 minutes.
`create_coin(name, symbol, path)` does the same by itself for any image over 4 MiB.
"""

from __future__ import annotations

import argparse

from partner_sdk import PartnerClient


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("image", help="PNG, JPEG, WebP or GIF, at most 5 MiB")
    parser.add_argument("--token", required=True, help="an access token with coin:create (the /demo page shows one)")
    parser.add_argument("--base-url", default="http://127.0.0.1:3000")
    parser.add_argument("--name", default="Staged Coin")
    parser.add_argument("--symbol", default="STAGED")
    args = parser.parse_args(argv)
    with PartnerClient(args.base_url, args.token) as api:
        upload_id = api.upload_image(args.image)
        print("staged:", upload_id)
        launched = api.create_coin(args.name, args.symbol, image_upload_id=upload_id)
        print("launched:", launched.mint, launched.signature, launched.image_uri)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
