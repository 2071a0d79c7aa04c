# ruff: noqa
import requests


def pull_inventory(base_url, token):
    headers = {"Authorization": f"Bearer {token}"}
    resp = requests.get(f"{base_url}/inventory", headers=headers, verify=False)  # VULN
    resp.raise_for_status()
    return resp.json()
