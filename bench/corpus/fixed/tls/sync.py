# ruff: noqa
import requests


def pull_inventory(base_url, token, ca_bundle=None):
    headers = {"Authorization": f"Bearer {token}"}
    resp = requests.get(f"{base_url}/inventory", headers=headers, verify=ca_bundle or True)
    resp.raise_for_status()
    return resp.json()
