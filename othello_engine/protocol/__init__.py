"""Protocol adapters: one module per protocol; a line in, an Engine call, a formatted line out."""
