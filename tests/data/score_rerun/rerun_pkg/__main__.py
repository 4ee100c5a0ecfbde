"""`python -m rerun_pkg N`: a command line whose main() parses sys.argv (and exits on bad arguments)."""

import argparse

from rerun_pkg.words import describe


def main():
    parser = argparse.ArgumentParser(prog="rerun_pkg")
    parser.add_argument("n", type=int)
    print(describe(parser.parse_args().n))


if __name__ == "__main__":
    main()
