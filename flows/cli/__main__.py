"""`python -m flows.cli` is `rlauto`."""

from flows.cli import main

main()
