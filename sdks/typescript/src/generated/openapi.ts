// Generated from docs/openapi.json by openapi-typescript (scripts/generate.mjs; `make openapi`): do not edit.
/* eslint-disable */
export interface paths {
    "/oauth/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Consent screen (browser redirect)
         * @description Served on `{auth_url}`. Answers the sign-in or consent page (HTML); errors are HTML, or the Error object with `Accept: application/json`.
         */
        get: operations["oauthAuthorize"];
        put?: never;
        /**
         * Consent decision (posted by the page)
         * @description Posted by the consent page with the platform session cookie; redirects to the client's redirect URI with `code` (or `error=access_denied`) and `state`.
         */
        post: operations["oauthAuthorizeDecide"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a token (RFC 7009)
         * @description Unknown or foreign tokens are ignored. Also accepts `application/json` (string values).
         */
        post: operations["oauthRevoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue tokens (authorization_code or refresh_token)
         * @description Client authentication by HTTP Basic (client_id, API key) or body fields client_id and client_secret. Also accepts `application/json` (string values). Responses carry `cache-control: no-store` and `pragma: no-cache`.
         */
        post: operations["oauthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/account/apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The user's connected apps (browser page)
         * @description Served on `{auth_url}` behind the platform session cookie (added): every app with a live grant, its scopes, connected and last-used times, today's spend against its daily limit, and forms to change the limits or disconnect.
         */
        get: operations["accountApps"];
        put?: never;
        /**
         * Change an app's limits or disconnect it (posted by the page)
         * @description Posted by /account/apps with the platform session cookie; redirects (303) back to the page. A limit above the app's cap, a missing session or a bad CSRF token: 400 (HTML, or the Error object with `Accept: application/json`). Sends the client's webhook `grant.updated` or `grant.revoked`.
         */
        post: operations["accountAppsChange"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/account/signin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Sign in through the platform's OpenID provider (browser redirect)
         * @description Served on `{auth_url}` (added). The consent page and /account/apps send a visitor without a session here; it redirects to the platform's OpenID provider (authorization code, PKCE S256, `state` bound to the browser by the `app_signin` cookie, `nonce`).
         */
        get: operations["accountSignin"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/account/signin/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The provider's redirect back (browser)
         * @description The redirect URI registered with the platform's provider (added). Checks `state` against the `app_signin` cookie, exchanges the code, verifies the ID token (JWKS signature, algorithm, iss, aud, exp, iat, nonce), maps `sub` to the user, sets the `app_session` cookie and redirects to the original page. Every refusal is an HTML error page and no session (502 `temporarily_unavailable` when the provider cannot be reached).
         */
        get: operations["accountSigninCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The connected user's profile */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/{mint}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A token's governance, proposals and the viewer's votes
         * @description A malformed mint yields 404 governance_not_found, not 400. So do the fixed paths beside `{mint}`: GET on `/partner/v1/governance/votes`, `/partner/v1/governance/proposals`, `/partner/v1/governance/metadata`, `/partner/v1/governance/bonds` answers 404 governance_not_found.
         */
        get: operations["getGovernance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/proposals/{proposal}/votes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A proposal's votes
         * @description Largest stake first. A malformed proposal address yields an empty array.
         */
        get: operations["listProposalVotes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/trades/buy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Buy: spend up to maxSolIn */
        post: operations["tradeBuy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/trades/buy-exact-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Buy exactly tokensOut */
        post: operations["tradeBuyExactOut"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/trades/quote": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Quote a trade: nothing signed, sent or counted
         * @description The read bucket (300/min per token); no delegation needed. The amounts come from the trade endpoints' own math on the state read at `contextSlot`: the same trade sent at once in explicit mode with the quote's bound (`minTokensOut`, `maxSolIn` or `minSolOut`) and the same `partnerFeeBps` moves exactly these amounts on-chain unless the venue's state changes in between.
         */
        post: operations["tradeQuote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/trades/sell": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sell tokensIn */
        post: operations["tradeSell"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/bonds/withdraw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Withdraw a proposal bond */
        post: operations["withdrawProposalBond"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/proposals/extend-mutability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Propose extending the mutable window */
        post: operations["proposeExtendMutability"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/metadata/finalize-expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Record a lapsed mutability window */
        post: operations["finalizeExpiredMetadata"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/proposals/finalize-metadata": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Propose locking metadata permanently */
        post: operations["proposeFinalizeMetadata"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/proposals/settle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Settle a closed proposal */
        post: operations["settleProposal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/proposals/update-content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Propose a metadata change
         * @description A multipart body reaches the function base64-encoded inside an event of at most 6,291,456 bytes (Lambda's quota), so a direct image part carries images up to 4 MiB. A bigger request answers API Gateway's 413 payload_too_large: upload images over 4 MiB with POST /partner/v1/uploads and send `imageUploadId` instead of the `image` part.
         */
        post: operations["proposeUpdateContent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/votes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cast a vote */
        post: operations["castVote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/votes/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel an active vote */
        post: operations["cancelVote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/governance/votes/withdraw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Withdraw a vote's locked tokens */
        post: operations["withdrawVote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/coins/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Launch a coin, optionally with a first buy
         * @description A multipart body reaches the function base64-encoded inside an event of at most 6,291,456 bytes (Lambda's quota), so a direct image part carries images up to 4 MiB. A bigger request answers API Gateway's 413 payload_too_large: upload images over 4 MiB with POST /partner/v1/uploads and send `imageUploadId` instead of the `image` part.
         */
        post: operations["createCoin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stage an image for coins/create or update-content
         * @description Added (not in the spec). Scope `coin:create` or `governance:propose` (either one); its own bucket, 30/min per access token, plus the tier budget; no delegation. Answers an S3 presigned POST for one image of at most contentLength bytes (at most 5 MiB), valid 15 minutes: the way to send images too big for a direct multipart body (API Gateway hands a multipart body to Lambda base64-encoded, and Lambda takes at most 6 MB). Then send its uploadId as `imageUploadId` in place of the `image` part.
         */
        post: operations["createUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/fees/estimate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Priority fee percentiles for a trade on a mint
         * @description Added (not in the spec). Percentiles of the compute-unit prices that recently landed transactions writing the mint's bonding curve or pool, as lamports for the service's compute-unit limit; amounts never below the spec minimums. Read bucket.
         */
        get: operations["getFeeEstimate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/partner/v1/transactions/{signature}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A transaction's (or launch bundle's) status
         * @description `expired` (added): the service sent the transaction, alone or in a launch bundle, and its blockhash expired before it landed (`error` tx_expired), where the chain alone would say not_found.
         */
        get: operations["getTransactionStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether the API answers
         * @description Added (not in the spec). No authentication, no rate-limit bucket, no data: the function reads no table, key or chain.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "transaction.confirmed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A transaction the service sent reached `confirmed`.
         * @description Registered per client with `partnerctl client webhook set CLIENT_ID URL` (https; a development client may use http on localhost). Delivered at least once: answer 2xx; anything else or no answer within 5 s is retried with exponential backoff for 24 hours.
         */
        post: operations["transaction_confirmed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "transaction.finalized": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * It reached `finalized` (after `transaction.confirmed`).
         * @description Registered per client with `partnerctl client webhook set CLIENT_ID URL` (https; a development client may use http on localhost). Delivered at least once: answer 2xx; anything else or no answer within 5 s is retried with exponential backoff for 24 hours.
         */
        post: operations["transaction_finalized"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "transaction.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * It landed with an error (`data.error`: the mapped spec code), or its launch bundle failed (`tx_failed`).
         * @description Registered per client with `partnerctl client webhook set CLIENT_ID URL` (https; a development client may use http on localhost). Delivered at least once: answer 2xx; anything else or no answer within 5 s is retried with exponential backoff for 24 hours.
         */
        post: operations["transaction_failed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "transaction.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Its blockhash expired before it landed (`data.error`: tx_expired): safe to rebuild.
         * @description Registered per client with `partnerctl client webhook set CLIENT_ID URL` (https; a development client may use http on localhost). Delivered at least once: answer 2xx; anything else or no answer within 5 s is retried with exponential backoff for 24 hours.
         */
        post: operations["transaction_expired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * AppsChange
         * @description A form of /account/apps (browser only).
         */
        AppsChange: {
            /**
             * Action
             * @enum {string}
             */
            action: "limits" | "disconnect";
            /**
             * Client Id
             * @description The app.
             */
            client_id: string;
            /**
             * Csrf
             * @description The page's CSRF token.
             */
            csrf: string;
            /**
             * Max Trade Sol
             * @description action=limits: the per-trade limit in SOL (at most the app's cap).
             */
            max_trade_sol?: string | null;
            /**
             * Daily Cap Sol
             * @description action=limits: the daily limit in SOL (at most the app's cap).
             */
            daily_cap_sol?: string | null;
        };
        /**
         * AuthorizationCodeGrant
         * @description grant_type=authorization_code. Client credentials by HTTP Basic, or in the body.
         */
        AuthorizationCodeGrant: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            grant_type: "authorization_code";
            /**
             * Code
             * @description The `app_ac_` code from the callback.
             */
            code: string;
            /**
             * Redirect Uri
             * @description Must match the URI stored with the code.
             */
            redirect_uri: string;
            /**
             * Code Verifier
             * @description PKCE verifier hashing (S256) to the original challenge.
             */
            code_verifier: string;
            /**
             * Client Id
             * @description Only when not using HTTP Basic.
             */
            client_id?: string | null;
            /**
             * Client Secret
             * @description The API key; only when not using HTTP Basic.
             */
            client_secret?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** BondWithdrawRequest */
        BondWithdrawRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /** Votedurationseconds */
            voteDurationSeconds?: string | null;
            /**
             * Proposal
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            proposal: string;
        };
        /** BundleStatus */
        BundleStatus: {
            /** Bundleid */
            bundleId: string;
            /** Signatures */
            signatures: string[];
            /**
             * Status
             * @description The bundle's landing status (processed, confirmed, finalized, failed, pending, invalid).
             */
            status: string;
        };
        /** BuyExactOutRequest */
        BuyExactOutRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /**
             * Mint
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            mint: string;
            /** Slippagebps */
            slippageBps?: number;
            /**
             * Partnerfeebps
             * @description Integer 0 to 9999, as a number or a string. Non-zero adds a partner fee.
             */
            partnerFeeBps?: number | string | null;
            /**
             * Tokensout
             * @description Integer string of base units, greater than 0, at most u64 max.
             */
            tokensOut: string;
            /** Maxsolin */
            maxSolIn?: string | null;
        };
        /** BuyRequest */
        BuyRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /**
             * Mint
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            mint: string;
            /** Slippagebps */
            slippageBps?: number;
            /**
             * Partnerfeebps
             * @description Integer 0 to 9999, as a number or a string. Non-zero adds a partner fee.
             */
            partnerFeeBps?: number | string | null;
            /**
             * Maxsolin
             * @description Integer string of base units, greater than 0, at most u64 max.
             */
            maxSolIn: string;
            /** Mintokensout */
            minTokensOut?: string | null;
        };
        /** CancelVoteRequest */
        CancelVoteRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /**
             * Proposal
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            proposal: string;
        };
        /**
         * CoinCreateForm
         * @description The image is required: as the file `image`, or (added) staged with POST /partner/v1/uploads and named by
         *     `imageUploadId` (both: invalid_input; neither: image_required). initialBuySol and initialBuyTokens are
         *     mutually exclusive; initialBuyTokens needs initialBuyMaxSolIn. At most 16 form fields and 4 files. The
         *     client's fee ceiling counts the launch's priorityFeeLamports, or with a first buy the bundle's total:
         *     2 x priorityFeeLamports + the bundle's tip of 1000000 lamports (over it: 400 invalid_input, field
         *     priorityFeeLamports, with maxFeeLamports).
         */
        CoinCreateForm: {
            /**
             * Name
             * @description NFC-normalized and trimmed, then 1 to 32 bytes of UTF-8.
             */
            name: string;
            /**
             * Symbol
             * @description Trimmed and upper-cased, then 1 to 10 characters A-Z and 0-9.
             */
            symbol: string;
            /** Description */
            description?: string | null;
            /** Website */
            website?: string | null;
            /** Twitter */
            twitter?: string | null;
            /** Telegram */
            telegram?: string | null;
            /** Priorityfeelamports */
            priorityFeeLamports?: string | null;
            /** Initialbuysol */
            initialBuySol?: string | null;
            /** Initialbuytokens */
            initialBuyTokens?: string | null;
            /** Initialbuymaxsolin */
            initialBuyMaxSolIn?: string | null;
            /** Slippagebps */
            slippageBps?: string | null;
            /** Maxbypassfeelamports */
            maxBypassFeeLamports?: string | null;
            /** Imageuploadid */
            imageUploadId?: string | null;
            /** Image */
            image?: string | null;
        };
        /** CoinCreateResponse */
        CoinCreateResponse: {
            /**
             * Signature
             * @description The launch transaction's signature.
             */
            signature: string;
            /**
             * Mint
             * @description The new token's mint.
             */
            mint: string;
            /**
             * Status
             * @constant
             */
            status: "submitted";
            /**
             * Metadatauri
             * @description `ipfs://` URI of the metadata document.
             */
            metadataUri: string;
            /**
             * Imageuri
             * @description `ipfs://` URI of the image.
             */
            imageUri: string;
            initialBuyPlan: components["schemas"]["InitialBuyPlan"] | null;
            /**
             * Signatures
             * @description Launch and first buy, when sent as a bundle.
             */
            signatures?: string[] | null;
            /**
             * Bundleid
             * @description The bundle, when sent as one.
             */
            bundleId?: string | null;
        };
        /**
         * ConsentDecision
         * @description The consent form the consent page posts back (browser only).
         */
        ConsentDecision: {
            /**
             * Request
             * @description The signed authorization request from the page.
             */
            request: string;
            /**
             * Csrf
             * @description The page's CSRF token.
             */
            csrf: string;
            /**
             * Decision
             * @enum {string}
             */
            decision: "approve" | "deny";
            /**
             * Max Trade Sol
             * @description With trade:execute: the user's per-trade limit for this app in SOL (at most the client's cap; absent: unchanged). Added.
             */
            max_trade_sol?: string | null;
            /**
             * Daily Cap Sol
             * @description With trade:execute: the user's daily limit for this app in SOL (at most the client's cap; absent: unchanged). Added.
             */
            daily_cap_sol?: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * Error
         * @description The Error object. Code-specific fields are additive (e.g. `requiredLamports`).
         */
        Error: {
            /**
             * Error
             * @description Stable machine-readable code; match on this.
             */
            error: string;
            /**
             * Message
             * @description Human-readable; may change.
             * @default null
             */
            message: string | null;
            /**
             * Action
             * @description Suggested next step.
             * @default null
             */
            action: string | null;
            /**
             * Retryable
             * @description Whether an identical retry could plausibly succeed.
             * @default null
             */
            retryable: boolean | null;
            /**
             * Error Description
             * @description OAuth endpoints only (RFC 6749).
             * @default null
             */
            error_description: string | null;
        } & {
            [key: string]: unknown;
        };
        /** ExtendMutabilityRequest */
        ExtendMutabilityRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /** Votedurationseconds */
            voteDurationSeconds?: string | null;
            /**
             * Mint
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            mint: string;
            /**
             * Additionalseconds
             * @description Integer string of base units, greater than 0, at most u64 max.
             */
            additionalSeconds: string;
        };
        /** FeeEstimate */
        FeeEstimate: {
            /**
             * Mint
             * @description The mint asked about.
             */
            mint: string;
            /**
             * Computeunitlimit
             * @description The compute-unit limit the service sets on a trade.
             */
            computeUnitLimit: number;
            /** @description Lamports for `priorityFeeLamports` that pay at least the percentile's compute-unit price at `computeUnitLimit`; never below the minimum (1000). */
            priorityFeeLamports: components["schemas"]["FeePercentiles"];
            /** @description Percentiles (nearest rank) of the recent per-slot prices (micro-lamports per compute unit) that landed transactions write-locking `accounts` (getRecentPrioritizationFees), over the slots where that price was above 0. */
            computeUnitPriceMicroLamports: components["schemas"]["FeePercentiles"];
            /**
             * Tiplamports
             * @description The minimum tip (1000000).
             */
            tipLamports: string;
            /**
             * Slots
             * @description How many recent slots the percentiles are drawn from: those where a transaction writing `accounts` paid a price (0: none; minimums).
             */
            slots: number;
            /** @description The service's pick: the 75th percentile (a price that landed in 3 of 4 recent paid slots). */
            recommended: components["schemas"]["FeeLevel"];
            /**
             * Sampledslots
             * @description The recent slots the chain reported (up to 150).
             */
            sampledSlots: number;
            /**
             * Accounts
             * @description The accounts a trade on the mint write-locks that the estimate read (the curve, the pool, their vaults and the fee recipients).
             */
            accounts: string[];
        };
        /** FeeLevel */
        FeeLevel: {
            /**
             * Percentile
             * @description The percentile recommended (75).
             */
            percentile: number;
            /**
             * Priorityfeelamports
             * @description Send as `priorityFeeLamports`.
             */
            priorityFeeLamports: string;
            /** Computeunitpricemicrolamports */
            computeUnitPriceMicroLamports: string;
        };
        /** FeePercentiles */
        FeePercentiles: {
            /** P25 */
            p25: string;
            /** P50 */
            p50: string;
            /** P75 */
            p75: string;
            /** P95 */
            p95: string;
        };
        /** FinalizeExpiredRequest */
        FinalizeExpiredRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /** Votedurationseconds */
            voteDurationSeconds?: string | null;
            /**
             * Mint
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            mint: string;
        };
        /** FinalizeMetadataRequest */
        FinalizeMetadataRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /** Votedurationseconds */
            voteDurationSeconds?: string | null;
            /**
             * Mint
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            mint: string;
        };
        /** Governance */
        Governance: {
            /**
             * Governance
             * @description Governance account address.
             */
            governance: string;
            /**
             * Mint
             * @description Token mint.
             */
            mint: string;
            /**
             * Metadata
             * @description Metadata account address.
             */
            metadata: string;
            /**
             * Creator
             * @description Wallet that launched the token.
             */
            creator: string;
            /**
             * Totalsupply
             * @description Base units.
             */
            totalSupply: string;
            /**
             * Createdatunix
             * @description Creation time.
             */
            createdAtUnix: string;
            /**
             * Mutableuntilunix
             * @description When metadata locks permanently.
             */
            mutableUntilUnix: string;
            /** Minvotercount */
            minVoterCount: number;
            /**
             * Minlockamount
             * @description Smallest accepted vote, base units.
             */
            minLockAmount: string;
            /** Minparticipatingsupplybps */
            minParticipatingSupplyBps: number;
            /** Approvalbps */
            approvalBps: number;
            /** Proposalbondbps */
            proposalBondBps: number;
            /**
             * Proposalbondlevel
             * @description The proposal bond's doubling count now: a rejected or quorum-not-met proposal adds its voting days (rounded up, at most 32), each whole day without a proposal since the last voting end takes one off, a passed proposal resets it to 0.
             */
            proposalBondLevel: number;
            /**
             * Nextproposalbondamount
             * @description Base units a proposal created now must lock: totalSupply * proposalBondBps / 10000, doubled proposalBondLevel times (above totalSupply: no holder can create one until it decays).
             */
            nextProposalBondAmount: string;
            /** Finalized */
            finalized: boolean;
            /**
             * Contentrevision
             * @description Increments on every applied metadata change.
             */
            contentRevision: string;
            /** Mutabilityextended */
            mutabilityExtended: boolean;
            /** Namelocked */
            nameLocked: boolean;
            /** Symbollocked */
            symbolLocked: boolean;
            /** Imagelocked */
            imageLocked: boolean;
            /** Descriptionlocked */
            descriptionLocked: boolean;
            /** Websitelocked */
            websiteLocked: boolean;
            /** Twitterlocked */
            twitterLocked: boolean;
            /** Telegramlocked */
            telegramLocked: boolean;
        };
        /** GovernanceView */
        GovernanceView: {
            governance: components["schemas"]["Governance"];
            /**
             * Proposals
             * @description Newest first.
             */
            proposals: components["schemas"]["Proposal"][];
            /**
             * Viewervotes
             * @description The connected user's votes.
             */
            viewerVotes: components["schemas"]["Vote"][];
        };
        /** GovernanceWriteResponse */
        GovernanceWriteResponse: {
            /**
             * Signature
             * @description Transaction signature (Base58).
             */
            signature: string;
            /**
             * Status
             * @constant
             */
            status: "processed";
            /**
             * Mint
             * @description Token mint.
             */
            mint: string;
            /**
             * Governance
             * @description Governance account.
             */
            governance: string;
            /**
             * Proposal
             * @description Proposal account, where the endpoint has one.
             */
            proposal?: string | null;
        };
        /** Health */
        Health: {
            /**
             * Status
             * @description The function answered; nothing else is checked or told.
             * @constant
             */
            status: "ok";
        };
        /** InitialBuyPlan */
        InitialBuyPlan: {
            /**
             * Kind
             * @constant
             */
            kind: "buy";
            /**
             * Authorizedmaxsolin
             * @description Lamports.
             */
            authorizedMaxSolIn: string;
            /**
             * Expectedsolin
             * @description Lamports actually expected to be spent.
             */
            expectedSolIn: string;
            /**
             * Expectedtokensout
             * @description Token base units.
             */
            expectedTokensOut: string;
            /**
             * Capacitytokensout
             * @description Token base units that fit under the limits.
             */
            capacityTokensOut: string;
            /** Clamped */
            clamped: boolean;
            /** Clampreasons */
            clampReasons: ("token_balance" | "net_bought" | "migration_threshold")[];
        };
        /** Profile */
        Profile: {
            user: components["schemas"]["ProfileUser"];
            /** Client */
            client: string | null;
            /** Scopes */
            scopes?: string[];
            /** @description Added: this grant's caps and today's spend, so a partner can show them before a trade. */
            limits: components["schemas"]["ProfileLimits"];
        };
        /** ProfileLimits */
        ProfileLimits: {
            /**
             * Maxtradelamports
             * @description The effective per-trade cap of this grant: the lower of the client's cap and the limit the user chose (at consent or on /account/apps). A trade above it answers 403 trade_cap_exceeded with this value.
             */
            maxTradeLamports: string;
            /**
             * Dailyvolumecaplamports
             * @description The effective daily volume cap of this grant (UTC day), the lower of the client's and the user's. A trade past it answers 403 daily_cap_exceeded with this value (or the client's cap, when the client's own daily volume is what ran out).
             */
            dailyVolumeCapLamports: string;
            /**
             * Spenttodaylamports
             * @description What this grant's trades reserved today (UTC), counted against dailyVolumeCapLamports.
             */
            spentTodayLamports: string;
        };
        /** ProfileUser */
        ProfileUser: {
            /** Walletsolana */
            walletSolana: string | null;
            /** Twitterhandle */
            twitterHandle: string | null;
            /** Tradingenabled */
            tradingEnabled: boolean;
        };
        /** Proposal */
        Proposal: {
            /**
             * Proposal
             * @description Proposal account address.
             */
            proposal: string;
            /**
             * Governance
             * @description Parent governance account.
             */
            governance: string;
            /**
             * Proposer
             * @description Creator wallet.
             */
            proposer: string;
            /**
             * Proposalindex
             * @description Monotonic index within the governance.
             */
            proposalIndex: string;
            /**
             * Basecontentrevision
             * @description Revision the proposal was authored against.
             */
            baseContentRevision: string;
            /**
             * Actionkind
             * @enum {string}
             */
            actionKind: "update_content" | "extend_mutability" | "finalize_metadata";
            /** Actionname */
            actionName: string | null;
            /** Actionsymbol */
            actionSymbol: string | null;
            /** Actionuri */
            actionUri: string | null;
            /** Actionadditionalseconds */
            actionAdditionalSeconds: string | null;
            /** Changedname */
            changedName: boolean;
            /** Changedsymbol */
            changedSymbol: boolean;
            /** Changedimage */
            changedImage: boolean;
            /** Changeddescription */
            changedDescription: boolean;
            /** Changedwebsite */
            changedWebsite: boolean;
            /** Changedtwitter */
            changedTwitter: boolean;
            /** Changedtelegram */
            changedTelegram: boolean;
            /**
             * Createdatunix
             * @description Creation time.
             */
            createdAtUnix: string;
            /**
             * Votingendsatunix
             * @description When voting closes.
             */
            votingEndsAtUnix: string;
            /**
             * Proposalbondamount
             * @description Tokens locked as bond.
             */
            proposalBondAmount: string;
            /** Proposalbondwithdrawn */
            proposalBondWithdrawn: boolean;
            /**
             * Yesvotes
             * @description Weight, base units.
             */
            yesVotes: string;
            /**
             * Novotes
             * @description Weight, base units.
             */
            noVotes: string;
            /**
             * Participatingsupply
             * @description Total weight cast.
             */
            participatingSupply: string;
            /** Participatingvoters */
            participatingVoters: number;
            /**
             * Outcome
             * @enum {string}
             */
            outcome: "pending" | "passed" | "rejected" | "quorum_not_met";
            /** Executed */
            executed: boolean;
            /** Settled */
            settled: boolean;
            /** Metadataupdated */
            metadataUpdated: boolean;
            /**
             * Signature
             * @description Creating transaction (null if not found).
             */
            signature: string | null;
            /**
             * Blocktime
             * @description ISO 8601 timestamp.
             */
            blockTime: string | null;
        };
        /** QuoteRequest */
        QuoteRequest: {
            /**
             * Side
             * @enum {string}
             */
            side: "buy" | "buy-exact-out" | "sell";
            /**
             * Mint
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            mint: string;
            /**
             * Maxsolin
             * @description side buy: lamports to spend, partner fee included.
             */
            maxSolIn?: string | null;
            /**
             * Tokensout
             * @description side buy-exact-out: tokens to receive.
             */
            tokensOut?: string | null;
            /**
             * Tokensin
             * @description side sell: tokens to sell.
             */
            tokensIn?: string | null;
            /**
             * Slippagebps
             * @description 0 to 5000 (default 0): the bound in the answer is the one a trade in slippage mode with this value would use.
             * @default 0
             */
            slippageBps: number;
            /**
             * Partnerfeebps
             * @description Integer 0 to 9999, as a number or a string. Non-zero adds a partner fee.
             */
            partnerFeeBps?: number | string | null;
        };
        /**
         * QuoteResponse
         * @description What the same trade would do now. Exactly one of the expected/bound pairs is present, by side:
         *     buy -> expectedTokensOut, minTokensOut; buy-exact-out -> expectedSolIn, maxSolIn (both include
         *     the partner fee, as a trade's maxSolIn does); sell -> expectedSolOut, minSolOut (what the venue
         *     pays, before the partner fee is transferred out of it).
         */
        QuoteResponse: {
            /**
             * Venue
             * @enum {string}
             */
            venue: "curve" | "pool";
            /**
             * Expectedtokensout
             * @description buy: tokens out.
             */
            expectedTokensOut?: string | null;
            /**
             * Mintokensout
             * @description buy: the bound with this slippageBps.
             */
            minTokensOut?: string | null;
            /**
             * Expectedsolin
             * @description buy-exact-out: lamports in, venue and partner fee.
             */
            expectedSolIn?: string | null;
            /**
             * Maxsolin
             * @description buy-exact-out: the bound with this slippageBps.
             */
            maxSolIn?: string | null;
            /**
             * Expectedsolout
             * @description sell: lamports the venue pays.
             */
            expectedSolOut?: string | null;
            /**
             * Minsolout
             * @description sell: the bound with this slippageBps.
             */
            minSolOut?: string | null;
            /**
             * Protocolfeelamports
             * @description The venue's protocol fee.
             */
            protocolFeeLamports: string;
            /**
             * Partnerfeelamports
             * @description The partner fee (0 without partnerFeeBps).
             */
            partnerFeeLamports: string;
            /**
             * Priceimpactbps
             * @description The trade's price against the venue's price before it, fees left out, in basis points.
             */
            priceImpactBps: number;
            /**
             * Completescurve
             * @description The trade takes the curve's last tokens (migration follows).
             */
            completesCurve: boolean;
            /**
             * Contextslot
             * @description The slot the state was read at.
             */
            contextSlot: number;
            /**
             * Cappedtokensout
             * @description Added, only when a buy asks for more than the curve has left: the tokens it gets (the curve's last; migration follows).
             */
            cappedTokensOut?: string | null;
            /**
             * Cappedsolin
             * @description Added, with cappedTokensOut: the lamports the curve takes for them, its protocol fee included.
             */
            cappedSolIn?: string | null;
        };
        /**
         * RateLimited
         * @description A per-endpoint bucket's 429: no `error` code (the tier budget's 429 is an Error).
         */
        RateLimited: {
            /** Message */
            message: string;
            /** Retryafterseconds */
            retryAfterSeconds: number;
        } & {
            [key: string]: unknown;
        };
        /**
         * RefreshTokenGrant
         * @description grant_type=refresh_token. Client credentials by HTTP Basic, or in the body.
         */
        RefreshTokenGrant: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            grant_type: "refresh_token";
            /**
             * Refresh Token
             * @description The current `app_rt_` token.
             */
            refresh_token: string;
            /**
             * Scope
             * @description If sent, must equal the token's scopes.
             */
            scope?: string | null;
            /**
             * Client Id
             * @description Only when not using HTTP Basic.
             */
            client_id?: string | null;
            /**
             * Client Secret
             * @description The API key; only when not using HTTP Basic.
             */
            client_secret?: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * RevokeRequest
         * @description RFC 7009. Client credentials by HTTP Basic, or in the body.
         */
        RevokeRequest: {
            /**
             * Token
             * @description An `app_at_` or `app_rt_` token issued to this client.
             */
            token: string;
            /** Token Type Hint */
            token_type_hint?: string | null;
            /** Client Id */
            client_id?: string | null;
            /** Client Secret */
            client_secret?: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * RevokeResponse
         * @description Always an empty object: unknown or foreign tokens are ignored (RFC 7009).
         */
        RevokeResponse: Record<string, never>;
        /** SellRequest */
        SellRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /**
             * Mint
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            mint: string;
            /** Slippagebps */
            slippageBps?: number;
            /**
             * Partnerfeebps
             * @description Integer 0 to 9999, as a number or a string. Non-zero adds a partner fee.
             */
            partnerFeeBps?: number | string | null;
            /**
             * Tokensin
             * @description Integer string of base units, greater than 0, at most u64 max.
             */
            tokensIn: string;
            /** Minsolout */
            minSolOut?: string | null;
        };
        /** SettleRequest */
        SettleRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /**
             * Proposal
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            proposal: string;
        };
        /** TokenResponse */
        TokenResponse: {
            /**
             * Access Token
             * @description Valid 30 minutes.
             */
            access_token: string;
            /**
             * Token Type
             * @constant
             */
            token_type: "Bearer";
            /**
             * Expires In
             * @description Seconds, always 1800.
             * @constant
             */
            expires_in: 1800;
            /**
             * Refresh Token
             * @description New token, 60 days; replaces the one sent.
             */
            refresh_token: string;
            /**
             * Scope
             * @description Space-joined scopes carried by this access token.
             */
            scope: string;
        };
        /** TradeResponse */
        TradeResponse: {
            /**
             * Signature
             * @description Transaction signature (Base58).
             */
            signature: string;
            /**
             * Mint
             * @description Token mint.
             */
            mint: string;
            /**
             * Status
             * @constant
             */
            status: "submitted";
            /**
             * Cappedtokensout
             * @description Added, only when a buy asks for more than the curve has left: the tokens it gets (the curve's last; migration follows).
             */
            cappedTokensOut?: string | null;
            /**
             * Cappedsolin
             * @description Added, with cappedTokensOut: the lamports the curve takes for them, its protocol fee included.
             */
            cappedSolIn?: string | null;
        };
        /** TransactionStatus */
        TransactionStatus: {
            /** Signature */
            signature: string;
            /**
             * Status
             * @description `expired` (added): the service sent it (alone or in a bundle) and its blockhash expired before it landed.
             * @enum {string}
             */
            status: "pending" | "processed" | "confirmed" | "finalized" | "failed" | "expired" | "not_found";
            /** Slot */
            slot: number | null;
            /**
             * Error
             * @description The mapped spec code when `status` is failed; `tx_expired` when expired.
             */
            error: string | null;
            bundle: components["schemas"]["BundleStatus"] | null;
        };
        /**
         * UpdateContentFields
         * @description Omitted fields are left unchanged; at least one of name, symbol, image, description, website, twitter,
         *     telegram. An empty description/website/twitter/telegram clears it.
         */
        UpdateContentFields: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /**
             * Mint
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            mint: string;
            /** Votedurationseconds */
            voteDurationSeconds?: string | null;
            /** Basecontentrevision */
            baseContentRevision?: string | null;
            /** Name */
            name?: string | null;
            /** Symbol */
            symbol?: string | null;
            /** Description */
            description?: string | null;
            /** Website */
            website?: string | null;
            /** Twitter */
            twitter?: string | null;
            /** Telegram */
            telegram?: string | null;
            /** Imageuploadid */
            imageUploadId?: string | null;
            /** Image */
            image?: string | null;
        };
        /** UpdateContentResponse */
        UpdateContentResponse: {
            /**
             * Signature
             * @description Transaction signature (Base58).
             */
            signature: string;
            /**
             * Status
             * @constant
             */
            status: "processed";
            /**
             * Mint
             * @description Token mint.
             */
            mint: string;
            /**
             * Governance
             * @description Governance account.
             */
            governance: string;
            /**
             * Proposal
             * @description The new proposal account.
             */
            proposal: string;
            /**
             * Metadatauri
             * @description `ipfs://` URI of the (new) metadata document.
             */
            metadataUri: string | null;
            /**
             * Imageuri
             * @description `ipfs://` URI of the (new) image.
             */
            imageUri: string | null;
        };
        /** UploadRequest */
        UploadRequest: {
            /**
             * Contenttype
             * @description The image's type; the policy pins it as the upload's Content-Type.
             * @enum {string}
             */
            contentType: "image/png" | "image/jpeg" | "image/webp" | "image/gif";
            /**
             * Contentlength
             * @description The file's size in bytes, an integer string from 1 to 5242880 (5 MiB).
             */
            contentLength: string;
        };
        /**
         * UploadResponse
         * @description A staged image upload: POST `fields`, then the file as the form field `file`, to `url` (the
         *     standard S3 browser upload, multipart/form-data, no bearer token); then send `uploadId` as
         *     `imageUploadId` on coins/create or update-content. The policy signed into `fields` pins the key,
         *     the exact Content-Type, a size of 1 to maxBytes and the expiry.
         */
        UploadResponse: {
            /**
             * Uploadid
             * @description Send as `imageUploadId`. Usable once, by this client and user, until expiresAt.
             */
            uploadId: string;
            /**
             * Url
             * @description Where to POST the form (S3; on the devstack the moto server on 127.0.0.1).
             */
            url: string;
            /**
             * Fields
             * @description Form fields to send first, unchanged (key, Content-Type, policy, signature...); then the file as `file`.
             */
            fields: {
                [key: string]: string;
            };
            /**
             * Expiresat
             * @description Unix seconds, 15 minutes after creation: upload and launch before.
             */
            expiresAt: number;
            /**
             * Maxbytes
             * @description The largest file the policy accepts: the contentLength sent.
             */
            maxBytes: number;
        };
        /** Vote */
        Vote: {
            /**
             * Proposal
             * @description Proposal address.
             */
            proposal: string;
            /**
             * Voter
             * @description Voting wallet.
             */
            voter: string;
            /**
             * Side
             * @enum {string}
             */
            side: "yes" | "no";
            /**
             * Amount
             * @description Locked weight, base units.
             */
            amount: string;
            /** Countedasvoter */
            countedAsVoter: boolean;
            /** Active */
            active: boolean;
            /** Withdrawn */
            withdrawn: boolean;
            /**
             * Signature
             * @description Voting transaction (null if not found).
             */
            signature: string | null;
            /**
             * Blocktime
             * @description ISO 8601 timestamp.
             */
            blockTime: string | null;
        };
        /** VoteRequest */
        VoteRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /**
             * Proposal
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            proposal: string;
            /**
             * Side
             * @enum {string}
             */
            side: "yes" | "no";
            /**
             * Amount
             * @description Integer string of base units, greater than 0, at most u64 max.
             */
            amount: string;
        };
        /** VotesList */
        VotesList: {
            /**
             * Votes
             * @description Largest stake first.
             */
            votes: components["schemas"]["Vote"][];
        };
        /** WebhookEvent */
        WebhookEvent: {
            /**
             * Id
             * @description Never changes across retries: deduplicate on it.
             */
            id: string;
            /**
             * Type
             * @enum {string}
             */
            type: "transaction.confirmed" | "transaction.finalized" | "transaction.failed" | "transaction.expired";
            /**
             * Created
             * @description Unix seconds when the event was made.
             */
            created: number;
            data: components["schemas"]["WebhookEventData"];
        };
        /** WebhookEventData */
        WebhookEventData: {
            /** Signature */
            signature: string;
            /**
             * Kind
             * @enum {string}
             */
            kind: "buy" | "buy_exact_out" | "sell" | "vote" | "vote_cancel" | "vote_withdraw" | "settle" | "propose_update_content" | "propose_extend_mutability" | "propose_finalize_metadata" | "finalize_expired" | "bond_withdraw" | "coin_create";
            /** Mint */
            mint: string | null;
            /** Wallet */
            wallet: string;
            /** Slot */
            slot: number | null;
            /**
             * Error
             * @description The mapped spec code (failed), `tx_expired` (expired), else null.
             */
            error: string | null;
        };
        /** WithdrawVoteRequest */
        WithdrawVoteRequest: {
            /**
             * Priorityfeelamports
             * @description Lamports, integer string, minimum 1000, at most 18446744073709 (the compute-unit price fits u64). With tipLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            priorityFeeLamports: string;
            /**
             * Tiplamports
             * @description Lamports, integer string, minimum 1000000. With priorityFeeLamports, at most the client's fee ceiling per transaction (priorityFeeLamports + tipLamports; a launch bundle counts by its total), set by the operator, default 100000000 (0.1 SOL); over it: 400 invalid_input naming the larger of the two, with maxFeeLamports.
             */
            tipLamports: string;
            /**
             * Proposal
             * Format: solana-pubkey
             * @description Base58 public key (decodes to 32 bytes).
             */
            proposal: string;
            /** Voter */
            voter?: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    oauthAuthorize: {
        parameters: {
            query: {
                /** @description The client's ID. */
                client_id: string;
                /** @description Exactly the client's registered redirect URI. */
                redirect_uri: string;
                response_type: "code";
                /** @description Space-separated scopes: profile:read trade:execute governance:vote governance:propose coin:create */
                scope: string;
                /** @description base64url SHA-256 of the PKCE verifier. */
                code_challenge: string;
                code_challenge_method: "S256";
                /** @description Returned unchanged. */
                state?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sign-in or consent page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description invalid_request, unknown_client, invalid_redirect_uri, invalid_scope, scope_not_allowed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_request" | "unknown_client" | "invalid_redirect_uri" | "invalid_scope" | "scope_not_allowed";
                    };
                    "text/html": string;
                };
            };
            /** @description Per-endpoint rate limit (no `error` code). */
            429: {
                headers: {
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                    "text/html": string;
                };
            };
        };
    };
    oauthAuthorizeDecide: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["ConsentDecision"];
            };
        };
        responses: {
            /** @description Redirect to the client's redirect URI. */
            302: {
                headers: {
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description invalid_request, unknown_client, invalid_redirect_uri, invalid_scope, scope_not_allowed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_request" | "unknown_client" | "invalid_redirect_uri" | "invalid_scope" | "scope_not_allowed";
                    };
                    "text/html": string;
                };
            };
            /** @description Per-endpoint rate limit (no `error` code). */
            429: {
                headers: {
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                    "text/html": string;
                };
            };
        };
    };
    oauthRevoke: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["RevokeRequest"];
                "application/json": components["schemas"]["RevokeRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevokeResponse"];
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_request";
                    };
                };
            };
            /** @description invalid_client */
            401: {
                headers: {
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_client";
                    };
                };
            };
            /** @description too_many_failed_attempts */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "too_many_failed_attempts";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
        };
    };
    oauthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["AuthorizationCodeGrant"] | components["schemas"]["RefreshTokenGrant"];
                "application/json": components["schemas"]["AuthorizationCodeGrant"] | components["schemas"]["RefreshTokenGrant"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description invalid_request, unsupported_grant_type, invalid_grant, invalid_scope */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_request" | "unsupported_grant_type" | "invalid_grant" | "invalid_scope";
                    };
                };
            };
            /** @description invalid_client */
            401: {
                headers: {
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_client";
                    };
                };
            };
            /** @description too_many_failed_attempts */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "too_many_failed_attempts";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
        };
    };
    accountApps: {
        parameters: {
            query?: {
                /** @description `limits` or `disconnected`: the notice after a change. */
                done?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sign-in or consent page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Per-endpoint rate limit (no `error` code). */
            429: {
                headers: {
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                    "text/html": string;
                };
            };
        };
    };
    accountAppsChange: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["AppsChange"];
            };
        };
        responses: {
            /** @description Back to the page, with its notice. */
            303: {
                headers: {
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description invalid_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_request";
                    };
                    "text/html": string;
                };
            };
            /** @description Per-endpoint rate limit (no `error` code). */
            429: {
                headers: {
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                    "text/html": string;
                };
            };
        };
    };
    accountSignin: {
        parameters: {
            query?: {
                /** @description Where to come back to: `oauth/authorize?...` or `account/apps` (anything else: `account/apps`). */
                next?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the platform's OpenID provider, or back to the original page. */
            302: {
                headers: {
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Per-endpoint rate limit (no `error` code). */
            429: {
                headers: {
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                    "text/html": string;
                };
            };
        };
    };
    accountSigninCallback: {
        parameters: {
            query?: {
                code?: string | null;
                state?: string | null;
                error?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the platform's OpenID provider, or back to the original page. */
            302: {
                headers: {
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description invalid_request, access_denied, invalid_grant */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_request" | "access_denied" | "invalid_grant";
                    };
                    "text/html": string;
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                    "text/html": string;
                };
            };
            /** @description Per-endpoint rate limit (no `error` code). */
            429: {
                headers: {
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                    "text/html": string;
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Profile"];
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
        };
    };
    getGovernance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Token mint. Not checked for Base58: a malformed value is 404. */
                mint: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernanceView"];
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable";
                    };
                };
            };
        };
    };
    listProposalVotes: {
        parameters: {
            query?: {
                /** @description Default 50, at most 200; anything that is not a positive integer is treated as 50; never 400. */
                limit?: string | null;
            };
            header?: never;
            path: {
                /** @description Proposal account. A malformed value yields an empty list. */
                proposal: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VotesList"];
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable";
                    };
                };
            };
        };
    };
    tradeBuy: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BuyRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TradeResponse"];
                };
            };
            /** @description invalid_input, invalid_partner_fee, partner_fee_not_configured */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input" | "invalid_partner_fee" | "partner_fee_not_configured";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing, trade_cap_exceeded, daily_cap_exceeded */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing" | "trade_cap_exceeded" | "daily_cap_exceeded";
                    };
                };
            };
            /** @description idempotency_key_in_use, migration_pending, pool_not_open. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use" | "migration_pending" | "pool_not_open";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, insufficient_tokens, insufficient_liquidity, curve_complete, missing_sell_token_account, slippage_exceeded, buy_limit_exceeded, same_slot_trading_blocked, math_overflow */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "insufficient_tokens" | "insufficient_liquidity" | "curve_complete" | "missing_sell_token_account" | "slippage_exceeded" | "buy_limit_exceeded" | "same_slot_trading_blocked" | "math_overflow";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    tradeBuyExactOut: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BuyExactOutRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TradeResponse"];
                };
            };
            /** @description invalid_input, invalid_partner_fee, partner_fee_not_configured */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input" | "invalid_partner_fee" | "partner_fee_not_configured";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing, trade_cap_exceeded, daily_cap_exceeded */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing" | "trade_cap_exceeded" | "daily_cap_exceeded";
                    };
                };
            };
            /** @description idempotency_key_in_use, migration_pending, pool_not_open. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use" | "migration_pending" | "pool_not_open";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, insufficient_tokens, insufficient_liquidity, curve_complete, missing_sell_token_account, slippage_exceeded, buy_limit_exceeded, same_slot_trading_blocked, math_overflow */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "insufficient_tokens" | "insufficient_liquidity" | "curve_complete" | "missing_sell_token_account" | "slippage_exceeded" | "buy_limit_exceeded" | "same_slot_trading_blocked" | "math_overflow";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    tradeQuote: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QuoteRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuoteResponse"];
                };
            };
            /** @description invalid_input, invalid_partner_fee, partner_fee_not_configured */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input" | "invalid_partner_fee" | "partner_fee_not_configured";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope";
                    };
                };
            };
            /** @description migration_pending, pool_not_open */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "migration_pending" | "pool_not_open";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_liquidity, curve_complete, math_overflow */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_liquidity" | "curve_complete" | "math_overflow";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable";
                    };
                };
            };
        };
    };
    tradeSell: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SellRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TradeResponse"];
                };
            };
            /** @description invalid_input, invalid_partner_fee, partner_fee_not_configured */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input" | "invalid_partner_fee" | "partner_fee_not_configured";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing, trade_cap_exceeded, daily_cap_exceeded */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing" | "trade_cap_exceeded" | "daily_cap_exceeded";
                    };
                };
            };
            /** @description idempotency_key_in_use, migration_pending, pool_not_open. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use" | "migration_pending" | "pool_not_open";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, insufficient_tokens, insufficient_liquidity, curve_complete, missing_sell_token_account, slippage_exceeded, buy_limit_exceeded, same_slot_trading_blocked, math_overflow */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "insufficient_tokens" | "insufficient_liquidity" | "curve_complete" | "missing_sell_token_account" | "slippage_exceeded" | "buy_limit_exceeded" | "same_slot_trading_blocked" | "math_overflow";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    withdrawProposalBond: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BondWithdrawRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernanceWriteResponse"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, already_voted, invalid_vote_amount, missing_vote_token_account, vote_not_active, vote_already_withdrawn, vote_receipt_not_found, proposal_closed, proposal_still_open, proposal_already_settled, proposal_not_settled, proposal_not_found, invalid_proposal, active_proposal_exists, insufficient_proposal_bond, missing_proposal_token_account, no_proposal_bond, proposal_bond_already_withdrawn, proposal_window_closing, governance_finalized, metadata_not_mutable, metadata_still_mutable, content_field_locked, no_metadata_changes, stale_content_revision, mutability_expired, mutability_already_extended, mutability_extension_exceeds_cap, invalid_vote_duration, vote_duration_exceeds_window */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "already_voted" | "invalid_vote_amount" | "missing_vote_token_account" | "vote_not_active" | "vote_already_withdrawn" | "vote_receipt_not_found" | "proposal_closed" | "proposal_still_open" | "proposal_already_settled" | "proposal_not_settled" | "proposal_not_found" | "invalid_proposal" | "active_proposal_exists" | "insufficient_proposal_bond" | "missing_proposal_token_account" | "no_proposal_bond" | "proposal_bond_already_withdrawn" | "proposal_window_closing" | "governance_finalized" | "metadata_not_mutable" | "metadata_still_mutable" | "content_field_locked" | "no_metadata_changes" | "stale_content_revision" | "mutability_expired" | "mutability_already_extended" | "mutability_extension_exceeds_cap" | "invalid_vote_duration" | "vote_duration_exceeds_window";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    proposeExtendMutability: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExtendMutabilityRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernanceWriteResponse"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, already_voted, invalid_vote_amount, missing_vote_token_account, vote_not_active, vote_already_withdrawn, vote_receipt_not_found, proposal_closed, proposal_still_open, proposal_already_settled, proposal_not_settled, proposal_not_found, invalid_proposal, active_proposal_exists, insufficient_proposal_bond, missing_proposal_token_account, no_proposal_bond, proposal_bond_already_withdrawn, proposal_window_closing, governance_finalized, metadata_not_mutable, metadata_still_mutable, content_field_locked, no_metadata_changes, stale_content_revision, mutability_expired, mutability_already_extended, mutability_extension_exceeds_cap, invalid_vote_duration, vote_duration_exceeds_window */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "already_voted" | "invalid_vote_amount" | "missing_vote_token_account" | "vote_not_active" | "vote_already_withdrawn" | "vote_receipt_not_found" | "proposal_closed" | "proposal_still_open" | "proposal_already_settled" | "proposal_not_settled" | "proposal_not_found" | "invalid_proposal" | "active_proposal_exists" | "insufficient_proposal_bond" | "missing_proposal_token_account" | "no_proposal_bond" | "proposal_bond_already_withdrawn" | "proposal_window_closing" | "governance_finalized" | "metadata_not_mutable" | "metadata_still_mutable" | "content_field_locked" | "no_metadata_changes" | "stale_content_revision" | "mutability_expired" | "mutability_already_extended" | "mutability_extension_exceeds_cap" | "invalid_vote_duration" | "vote_duration_exceeds_window";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    finalizeExpiredMetadata: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FinalizeExpiredRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernanceWriteResponse"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, already_voted, invalid_vote_amount, missing_vote_token_account, vote_not_active, vote_already_withdrawn, vote_receipt_not_found, proposal_closed, proposal_still_open, proposal_already_settled, proposal_not_settled, proposal_not_found, invalid_proposal, active_proposal_exists, insufficient_proposal_bond, missing_proposal_token_account, no_proposal_bond, proposal_bond_already_withdrawn, proposal_window_closing, governance_finalized, metadata_not_mutable, metadata_still_mutable, content_field_locked, no_metadata_changes, stale_content_revision, mutability_expired, mutability_already_extended, mutability_extension_exceeds_cap, invalid_vote_duration, vote_duration_exceeds_window */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "already_voted" | "invalid_vote_amount" | "missing_vote_token_account" | "vote_not_active" | "vote_already_withdrawn" | "vote_receipt_not_found" | "proposal_closed" | "proposal_still_open" | "proposal_already_settled" | "proposal_not_settled" | "proposal_not_found" | "invalid_proposal" | "active_proposal_exists" | "insufficient_proposal_bond" | "missing_proposal_token_account" | "no_proposal_bond" | "proposal_bond_already_withdrawn" | "proposal_window_closing" | "governance_finalized" | "metadata_not_mutable" | "metadata_still_mutable" | "content_field_locked" | "no_metadata_changes" | "stale_content_revision" | "mutability_expired" | "mutability_already_extended" | "mutability_extension_exceeds_cap" | "invalid_vote_duration" | "vote_duration_exceeds_window";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    proposeFinalizeMetadata: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FinalizeMetadataRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernanceWriteResponse"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, already_voted, invalid_vote_amount, missing_vote_token_account, vote_not_active, vote_already_withdrawn, vote_receipt_not_found, proposal_closed, proposal_still_open, proposal_already_settled, proposal_not_settled, proposal_not_found, invalid_proposal, active_proposal_exists, insufficient_proposal_bond, missing_proposal_token_account, no_proposal_bond, proposal_bond_already_withdrawn, proposal_window_closing, governance_finalized, metadata_not_mutable, metadata_still_mutable, content_field_locked, no_metadata_changes, stale_content_revision, mutability_expired, mutability_already_extended, mutability_extension_exceeds_cap, invalid_vote_duration, vote_duration_exceeds_window */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "already_voted" | "invalid_vote_amount" | "missing_vote_token_account" | "vote_not_active" | "vote_already_withdrawn" | "vote_receipt_not_found" | "proposal_closed" | "proposal_still_open" | "proposal_already_settled" | "proposal_not_settled" | "proposal_not_found" | "invalid_proposal" | "active_proposal_exists" | "insufficient_proposal_bond" | "missing_proposal_token_account" | "no_proposal_bond" | "proposal_bond_already_withdrawn" | "proposal_window_closing" | "governance_finalized" | "metadata_not_mutable" | "metadata_still_mutable" | "content_field_locked" | "no_metadata_changes" | "stale_content_revision" | "mutability_expired" | "mutability_already_extended" | "mutability_extension_exceeds_cap" | "invalid_vote_duration" | "vote_duration_exceeds_window";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    settleProposal: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SettleRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernanceWriteResponse"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, already_voted, invalid_vote_amount, missing_vote_token_account, vote_not_active, vote_already_withdrawn, vote_receipt_not_found, proposal_closed, proposal_still_open, proposal_already_settled, proposal_not_settled, proposal_not_found, invalid_proposal, active_proposal_exists, insufficient_proposal_bond, missing_proposal_token_account, no_proposal_bond, proposal_bond_already_withdrawn, proposal_window_closing, governance_finalized, metadata_not_mutable, metadata_still_mutable, content_field_locked, no_metadata_changes, stale_content_revision, mutability_expired, mutability_already_extended, mutability_extension_exceeds_cap, invalid_vote_duration, vote_duration_exceeds_window */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "already_voted" | "invalid_vote_amount" | "missing_vote_token_account" | "vote_not_active" | "vote_already_withdrawn" | "vote_receipt_not_found" | "proposal_closed" | "proposal_still_open" | "proposal_already_settled" | "proposal_not_settled" | "proposal_not_found" | "invalid_proposal" | "active_proposal_exists" | "insufficient_proposal_bond" | "missing_proposal_token_account" | "no_proposal_bond" | "proposal_bond_already_withdrawn" | "proposal_window_closing" | "governance_finalized" | "metadata_not_mutable" | "metadata_still_mutable" | "content_field_locked" | "no_metadata_changes" | "stale_content_revision" | "mutability_expired" | "mutability_already_extended" | "mutability_extension_exceeds_cap" | "invalid_vote_duration" | "vote_duration_exceeds_window";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    proposeUpdateContent: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["UpdateContentFields"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpdateContentResponse"];
                };
            };
            /** @description invalid_input, invalid_multipart, invalid_image_type, invalid_name, invalid_symbol, name_too_long, symbol_too_long, invalid_website, invalid_twitter, invalid_telegram, website_too_long, twitter_too_long, telegram_too_long */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input" | "invalid_multipart" | "invalid_image_type" | "invalid_name" | "invalid_symbol" | "name_too_long" | "symbol_too_long" | "invalid_website" | "invalid_twitter" | "invalid_telegram" | "website_too_long" | "twitter_too_long" | "telegram_too_long";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, already_voted, invalid_vote_amount, missing_vote_token_account, vote_not_active, vote_already_withdrawn, vote_receipt_not_found, proposal_closed, proposal_still_open, proposal_already_settled, proposal_not_settled, proposal_not_found, invalid_proposal, active_proposal_exists, insufficient_proposal_bond, missing_proposal_token_account, no_proposal_bond, proposal_bond_already_withdrawn, proposal_window_closing, governance_finalized, metadata_not_mutable, metadata_still_mutable, content_field_locked, no_metadata_changes, stale_content_revision, mutability_expired, mutability_already_extended, mutability_extension_exceeds_cap, invalid_vote_duration, vote_duration_exceeds_window */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "already_voted" | "invalid_vote_amount" | "missing_vote_token_account" | "vote_not_active" | "vote_already_withdrawn" | "vote_receipt_not_found" | "proposal_closed" | "proposal_still_open" | "proposal_already_settled" | "proposal_not_settled" | "proposal_not_found" | "invalid_proposal" | "active_proposal_exists" | "insufficient_proposal_bond" | "missing_proposal_token_account" | "no_proposal_bond" | "proposal_bond_already_withdrawn" | "proposal_window_closing" | "governance_finalized" | "metadata_not_mutable" | "metadata_still_mutable" | "content_field_locked" | "no_metadata_changes" | "stale_content_revision" | "mutability_expired" | "mutability_already_extended" | "mutability_extension_exceeds_cap" | "invalid_vote_duration" | "vote_duration_exceeds_window";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed, pinning_unavailable */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed" | "pinning_unavailable";
                    };
                };
            };
        };
    };
    castVote: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VoteRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernanceWriteResponse"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, already_voted, invalid_vote_amount, missing_vote_token_account, vote_not_active, vote_already_withdrawn, vote_receipt_not_found, proposal_closed, proposal_still_open, proposal_already_settled, proposal_not_settled, proposal_not_found, invalid_proposal, active_proposal_exists, insufficient_proposal_bond, missing_proposal_token_account, no_proposal_bond, proposal_bond_already_withdrawn, proposal_window_closing, governance_finalized, metadata_not_mutable, metadata_still_mutable, content_field_locked, no_metadata_changes, stale_content_revision, mutability_expired, mutability_already_extended, mutability_extension_exceeds_cap, invalid_vote_duration, vote_duration_exceeds_window */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "already_voted" | "invalid_vote_amount" | "missing_vote_token_account" | "vote_not_active" | "vote_already_withdrawn" | "vote_receipt_not_found" | "proposal_closed" | "proposal_still_open" | "proposal_already_settled" | "proposal_not_settled" | "proposal_not_found" | "invalid_proposal" | "active_proposal_exists" | "insufficient_proposal_bond" | "missing_proposal_token_account" | "no_proposal_bond" | "proposal_bond_already_withdrawn" | "proposal_window_closing" | "governance_finalized" | "metadata_not_mutable" | "metadata_still_mutable" | "content_field_locked" | "no_metadata_changes" | "stale_content_revision" | "mutability_expired" | "mutability_already_extended" | "mutability_extension_exceeds_cap" | "invalid_vote_duration" | "vote_duration_exceeds_window";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    cancelVote: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CancelVoteRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernanceWriteResponse"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, already_voted, invalid_vote_amount, missing_vote_token_account, vote_not_active, vote_already_withdrawn, vote_receipt_not_found, proposal_closed, proposal_still_open, proposal_already_settled, proposal_not_settled, proposal_not_found, invalid_proposal, active_proposal_exists, insufficient_proposal_bond, missing_proposal_token_account, no_proposal_bond, proposal_bond_already_withdrawn, proposal_window_closing, governance_finalized, metadata_not_mutable, metadata_still_mutable, content_field_locked, no_metadata_changes, stale_content_revision, mutability_expired, mutability_already_extended, mutability_extension_exceeds_cap, invalid_vote_duration, vote_duration_exceeds_window */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "already_voted" | "invalid_vote_amount" | "missing_vote_token_account" | "vote_not_active" | "vote_already_withdrawn" | "vote_receipt_not_found" | "proposal_closed" | "proposal_still_open" | "proposal_already_settled" | "proposal_not_settled" | "proposal_not_found" | "invalid_proposal" | "active_proposal_exists" | "insufficient_proposal_bond" | "missing_proposal_token_account" | "no_proposal_bond" | "proposal_bond_already_withdrawn" | "proposal_window_closing" | "governance_finalized" | "metadata_not_mutable" | "metadata_still_mutable" | "content_field_locked" | "no_metadata_changes" | "stale_content_revision" | "mutability_expired" | "mutability_already_extended" | "mutability_extension_exceeds_cap" | "invalid_vote_duration" | "vote_duration_exceeds_window";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    withdrawVote: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WithdrawVoteRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernanceWriteResponse"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description governance_not_found */
            404: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "governance_not_found";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, already_voted, invalid_vote_amount, missing_vote_token_account, vote_not_active, vote_already_withdrawn, vote_receipt_not_found, proposal_closed, proposal_still_open, proposal_already_settled, proposal_not_settled, proposal_not_found, invalid_proposal, active_proposal_exists, insufficient_proposal_bond, missing_proposal_token_account, no_proposal_bond, proposal_bond_already_withdrawn, proposal_window_closing, governance_finalized, metadata_not_mutable, metadata_still_mutable, content_field_locked, no_metadata_changes, stale_content_revision, mutability_expired, mutability_already_extended, mutability_extension_exceeds_cap, invalid_vote_duration, vote_duration_exceeds_window */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "already_voted" | "invalid_vote_amount" | "missing_vote_token_account" | "vote_not_active" | "vote_already_withdrawn" | "vote_receipt_not_found" | "proposal_closed" | "proposal_still_open" | "proposal_already_settled" | "proposal_not_settled" | "proposal_not_found" | "invalid_proposal" | "active_proposal_exists" | "insufficient_proposal_bond" | "missing_proposal_token_account" | "no_proposal_bond" | "proposal_bond_already_withdrawn" | "proposal_window_closing" | "governance_finalized" | "metadata_not_mutable" | "metadata_still_mutable" | "content_field_locked" | "no_metadata_changes" | "stale_content_revision" | "mutability_expired" | "mutability_already_extended" | "mutability_extension_exceeds_cap" | "invalid_vote_duration" | "vote_duration_exceeds_window";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed";
                    };
                };
            };
        };
    };
    createCoin: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable ASCII characters, scoped to the client and the user, kept 24 hours. The first request claims the key; its answer (success or any error after admission and validation) is stored and a later request with the same key and the same request (method, path, canonical body) gets it again byte for byte with `idempotent-replayed: true`: nothing is built, signed, sent or counted again. Another request under a used key: 422 idempotency_key_reused; while the first still runs: 409 idempotency_key_in_use. 401, 429 (the launch cooldown too), 403 insufficient_scope and 400 answers are not stored and leave the key unused. Without the header every request is its own write. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["CoinCreateForm"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CoinCreateResponse"];
                };
            };
            /** @description invalid_input, invalid_multipart, invalid_image_type, invalid_name, invalid_symbol, name_too_long, symbol_too_long, invalid_website, invalid_twitter, invalid_telegram, website_too_long, twitter_too_long, telegram_too_long, image_required */
            400: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input" | "invalid_multipart" | "invalid_image_type" | "invalid_name" | "invalid_symbol" | "name_too_long" | "symbol_too_long" | "invalid_website" | "invalid_twitter" | "invalid_telegram" | "website_too_long" | "twitter_too_long" | "telegram_too_long" | "image_required";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope, delegation_missing */
            403: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope" | "delegation_missing";
                    };
                };
            };
            /** @description idempotency_key_in_use. idempotency_key_in_use carries retry-after. */
            409: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    /** @description idempotency_key_in_use: seconds to wait before sending again. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "idempotency_key_in_use";
                    };
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description invalid_wallet, insufficient_sol, tx_expired, tx_failed, tx_too_large, idempotency_key_reused, launch_identity_limit_reached, math_overflow */
            422: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_wallet" | "insufficient_sol" | "tx_expired" | "tx_failed" | "tx_too_large" | "idempotency_key_reused" | "launch_identity_limit_reached" | "math_overflow";
                    };
                };
            };
            /** @description rate_limit_exceeded, deploy_cooldown_active */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded" | "deploy_cooldown_active";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable, wallet_sign_failed, pinning_unavailable */
            502: {
                headers: {
                    /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable" | "wallet_sign_failed" | "pinning_unavailable";
                    };
                };
            };
        };
    };
    createUpload: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UploadRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadResponse"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description insufficient_scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "insufficient_scope";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
        };
    };
    getFeeEstimate: {
        parameters: {
            query: {
                /** @description The coin's mint (Base58). */
                mint: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FeeEstimate"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable";
                    };
                };
            };
        };
    };
    getTransactionStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Base58 transaction signature (64 bytes); else 400 invalid_input. */
                signature: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The endpoint bucket's requests per window. */
                    "x-ratelimit-limit"?: number;
                    /** @description Requests left in the window. */
                    "x-ratelimit-remaining"?: number;
                    /** @description Seconds until the window resets. */
                    "x-ratelimit-reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionStatus"];
                };
            };
            /** @description invalid_input */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_input";
                    };
                };
            };
            /** @description invalid_token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "invalid_token";
                    };
                };
            };
            /** @description rate_limit_exceeded */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "retry-after"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": (components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rate_limit_exceeded";
                    }) | components["schemas"]["RateLimited"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "internal";
                    };
                };
            };
            /** @description rpc_unavailable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        error?: "rpc_unavailable";
                    };
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    transaction_confirmed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body's `id`); the same on every retry. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; reject one more than 5 minutes from now. */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256(key, webhook-id + '.' + webhook-timestamp + '.' + body)>`, key = the base64-decoded part of the `whsec_` secret (Standard Webhooks). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"] & {
                    /** @constant */
                    type?: "transaction.confirmed";
                };
            };
        };
        responses: {
            /** @description Received (any 2xx). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    transaction_finalized: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body's `id`); the same on every retry. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; reject one more than 5 minutes from now. */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256(key, webhook-id + '.' + webhook-timestamp + '.' + body)>`, key = the base64-decoded part of the `whsec_` secret (Standard Webhooks). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"] & {
                    /** @constant */
                    type?: "transaction.finalized";
                };
            };
        };
        responses: {
            /** @description Received (any 2xx). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    transaction_failed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body's `id`); the same on every retry. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; reject one more than 5 minutes from now. */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256(key, webhook-id + '.' + webhook-timestamp + '.' + body)>`, key = the base64-decoded part of the `whsec_` secret (Standard Webhooks). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"] & {
                    /** @constant */
                    type?: "transaction.failed";
                };
            };
        };
        responses: {
            /** @description Received (any 2xx). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    transaction_expired: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (also the body's `id`); the same on every retry. */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; reject one more than 5 minutes from now. */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256(key, webhook-id + '.' + webhook-timestamp + '.' + body)>`, key = the base64-decoded part of the `whsec_` secret (Standard Webhooks). */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"] & {
                    /** @constant */
                    type?: "transaction.expired";
                };
            };
        };
        responses: {
            /** @description Received (any 2xx). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
