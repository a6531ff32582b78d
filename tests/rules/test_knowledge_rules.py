"""The engines' knowledge rules: what a check's degree yields, and PF2e's SG by Stufe."""

from __future__ import annotations

import pytest

from app.rules.ds4.knowledge import facts_learned as ds4_facts
from app.rules.hh.knowledge import facts_learned as hh_facts
from app.rules.pf2e.degrees import Degree
from app.rules.pf2e.knowledge import Recall, recall_dc, recall_knowledge


@pytest.mark.parametrize(
    ("degree", "recall"),
    [
        (Degree.CRITICAL_SUCCESS, Recall(2, False)),
        (Degree.SUCCESS, Recall(1, False)),
        (Degree.FAILURE, Recall(0, False)),
        (Degree.CRITICAL_FAILURE, Recall(0, True)),
    ],
)
def test_pf2e_recall_knowledge_by_degree(degree: Degree, recall: Recall) -> None:
    assert recall_knowledge(degree) == recall


def test_pf2e_level_dc_is_clamped_to_the_table() -> None:
    assert (recall_dc(-5), recall_dc(-1), recall_dc(1), recall_dc(20), recall_dc(99)) == (
        13, 13, 15, 40, 50,
    )  # fmt: skip


def test_hh_one_fact_per_qs_of_a_success() -> None:
    assert hh_facts(success=True, qs=3) == 3
    assert hh_facts(success=False, qs=0) == 0
    assert hh_facts(success=False, qs=2) == 0


def test_ds4_success_one_immersieg_two() -> None:
    assert ds4_facts(success=True, immersieg=False) == 1
    assert ds4_facts(success=True, immersieg=True) == 2
    assert ds4_facts(success=False, immersieg=False) == 0
