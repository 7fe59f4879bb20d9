# S.Ha.R.K. dumps are 16-byte binary records: no line to make endless
# (tests/formats/bombs.py asks every format read for its BOMB).
BOMB = None
