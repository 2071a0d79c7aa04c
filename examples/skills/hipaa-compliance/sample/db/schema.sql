-- Lines marked BAD are HIPAA-SCHEMA-001 findings (the phi-detector scanner).
CREATE TABLE patients (
    id SERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    ssn VARCHAR(11),            -- BAD
    diagnosis TEXT,             -- BAD
    date_of_birth BYTEA,        -- pgcrypto-encrypted
    medication TEXT             -- encrypted by the app with encrypt_phi()
);
