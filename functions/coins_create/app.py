"""POST /partner/v1/coins/create (multipart/form-data): launch a coin, optionally with the
creator's first buy in one bundle. Scope coin:create; bucket `coin` (20/min per token)."""

from partner.edge import apidoc, http
from partner.features.launch import execute as launch
from partner.features.launch import form as launch_form

app = http.make_app()


@app.post(
    "/partner/v1/coins/create",
    bucket="coin",
    scope="coin:create",
    summary="Launch a coin, optionally with a first buy",
    operation_id="createCoin",
    tags=["Coins"],
    description=apidoc.BIG_IMAGES,
    **apidoc.write(
        "CoinCreateResponse",
        apidoc.COIN_CREATE,
        apidoc.body(launch_form.CoinCreateForm, apidoc.MULTIPART, multipart_image=True),
    ),
)
def create_coin():
    return app.write_form(launch.read_request, launch.execute)


lambda_handler = http.entry(app)
