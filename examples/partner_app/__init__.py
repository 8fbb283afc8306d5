"""Example partner web app (stdlib http.server + the partner SDK). Run: python -m examples.partner_app"""
