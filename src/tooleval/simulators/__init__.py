"""Simulated users for episodes, and the audit that tells a broken user from a failing agent.

=================  ===========================================================
module             holds
=================  ===========================================================
``user``           :class:`UserSimulator`: a persona and an instruction per row, played by a chat model
``audit``          :func:`audit_user`: leaked instruction, early end, role swap, loop, simulator error
=================  ===========================================================
"""

from tooleval.simulators.audit import UserAudit, audit_user
from tooleval.simulators.user import STOP, UserSimulator

__all__ = ["STOP", "UserAudit", "UserSimulator", "audit_user"]
