"""Admissions: every line marked BAD is a finding of the hipaa-compliance skill."""

import hashlib
import logging

log = logging.getLogger(__name__)


def admit(db, patient, ssn, diagnosis):
    log.info("admitting patient %s ssn=%s", patient, ssn)  # BAD: HIPAA-LOG-001
    logging.debug(f"diagnosis for {patient}: {diagnosis}")  # BAD: HIPAA-LOG-001
    db.insert(patient)  # BAD: HIPAA-ENCRYPT-001
    db.save(record=diagnosis)  # BAD: HIPAA-ENCRYPT-001
    return hashlib.md5(ssn.encode()).hexdigest()  # PY-CRYPTO-001, raised to high by the skill
