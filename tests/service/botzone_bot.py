#!/usr/bin/env python3
"""A tiny Botzone FightTheLandlord bot (spec §11), one-shot mode, standard
library only: it shows that a bot written for Botzone in another language
runs unchanged under `botzone:`.

It bids 0, leads its lowest single card and passes whenever it follows, so
it is always legal (the referee checks it like any other)."""
import json
import sys


def main():
    full = json.loads(sys.stdin.readline())
    requests, responses = full["requests"], full["responses"]
    last = requests[-1]
    if "bid" in last:
        answer = 0
    else:
        hand = set()
        for i, req in enumerate(requests):
            if "own" in req and "history" in req:
                hand = set(req["own"])
                # botzone-ftl sends the landlord's 20 cards and no `landlord`
                if "landlord" not in req or req["landlord"] == req["pos"]:
                    hand |= set(req["publiccard"])
            if "history" in req and i < len(responses):
                hand -= set(responses[i])
        history = last["history"]
        following = bool(history[1]) or bool(history[0])
        # the rank of card code c is c // 4; jokers 52, 53 are ranks 13, 14
        answer = [] if following else [min(hand, key=lambda c: (c // 4, c))]
    print(json.dumps({"response": answer, "debug": "python"}), flush=True)


if __name__ == "__main__":
    main()
