"""`coach rules`: list the rule pack, or check a pack file."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("rules", help="list the rule pack, or check a pack file")
    r.add_argument("--rules", default=None, help="rule pack TOML to list")
    r.add_argument("--check", metavar="FILE", help="validate this rule pack and exit")
    r.set_defaults(func=cmd_rules)


def cmd_rules(args) -> int:
    from posture_rules.pack import load_pack

    from ..rulebook_text import check_summary, format_pack

    pack = load_pack(args.check or args.rules)
    if args.check:
        print(check_summary(pack, args.check))
        return 0
    print(format_pack(pack))
    return 0
