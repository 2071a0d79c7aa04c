"""Language servers: a client over stdio (``client``), which server serves which file
(``manager``), and the tools plus the diagnostics appended after an edit (``tools``)."""
