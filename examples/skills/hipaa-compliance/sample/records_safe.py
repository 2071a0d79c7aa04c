"""The safe twin of records.py: nothing here is a finding."""

import logging

from phi import encrypt_phi, redact_phi

log = logging.getLogger(__name__)


def admit(db, cache, patient, patient_id, ssn, session_id):
    log.info("admitting patient ssn=%s", redact_phi(ssn))
    log.info("admitted patient id=%s", patient_id)
    db.insert(encrypt_phi(patient))
    cache.set(session_id)
