"""One module per reproduced figure or table; see ``fdp.repro`` for the protocol."""
