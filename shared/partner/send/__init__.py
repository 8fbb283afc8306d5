"""The send machinery every write shares: the pipeline (assemble, check, sign, record, submit),
what it records before a send (presend), and a transaction's status (txstatus)."""
