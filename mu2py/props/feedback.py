"""What makes a property input worth keeping besides kills: new lines, a raised `target()` score, a new `event()`."""

from __future__ import annotations

from dataclasses import dataclass, field

from mu2py.props.handle import Observation


@dataclass
class LabelFeedback:
    """The best score seen per `target()` label and every `event()` label seen (one test's campaign)."""

    best: dict[str, float] = field(default_factory=dict)
    events: set[str] = field(default_factory=set)

    def novel(self, obs: Observation) -> list[str]:
        """Absorb one run's observation; the reasons it is new (`target:<label>`, `event:<label>`), if any.

        A target counts when it beats the best score so far (the first score of a label counts too).
        """
        reasons = []
        for label, score in obs.targets.items():
            if label not in self.best or score > self.best[label]:
                self.best[label] = score
                reasons.append(label)
        for event in sorted(obs.events - self.events):
            self.events.add(event)
            reasons.append(f"event:{event}")
        return reasons
