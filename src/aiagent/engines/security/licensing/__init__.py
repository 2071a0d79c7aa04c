"""License compliance (FR-4.11): declared licenses, SPDX normalisation and policy."""
