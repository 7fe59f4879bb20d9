# The recorder's stream is binary records: no line to make endless
# (tests/formats/bombs.py asks every format read for its BOMB).
BOMB = None
