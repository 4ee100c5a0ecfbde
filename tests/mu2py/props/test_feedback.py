"""Target and event feedback: an input is new when it raises a label's best score or shows a new event."""

from mu2py.props.feedback import LabelFeedback
from mu2py.props.handle import Observation


def test_a_raised_target_or_a_new_event_is_novel_and_nothing_else_is() -> None:
    feedback = LabelFeedback()
    assert feedback.novel(Observation({"target:length": 3.0}, {"plain"})) == ["target:length", "event:plain"]
    assert feedback.novel(Observation({"target:length": 3.0}, {"plain"})) == []  # equal score, seen event
    assert feedback.novel(Observation({"target:length": 2.0}, set())) == []  # a lower score is not progress
    assert feedback.novel(Observation({"target:length": 5.0}, {"plain", "tagged"})) == ["target:length",
                                                                                          "event:tagged"]
    assert feedback.best == {"target:length": 5.0} and feedback.events == {"plain", "tagged"}
