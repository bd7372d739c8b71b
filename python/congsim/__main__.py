"""`python -m congsim` is the `congsim` command."""

from congsim.cli import main

main()
