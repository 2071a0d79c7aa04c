# ruff: noqa
# VULN: the SSH key on the next line is pasted into the code (random bytes, not a real key)
DEPLOY_KEY = """-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACBkq3Vr0zXhQp1c8mWfN7Yt2LsJgEo4RbTuKdCwVxHnGQAAAJgx1a2FMdWt
-----END OPENSSH PRIVATE KEY-----
"""


def deploy(host):
    return {"host": host, "key": DEPLOY_KEY}
