"""`python -m owl_bt.cli …` is `owl-bt …`."""

from owl_bt.cli import main

main()
