"""BFCL (Berkeley Function Calling Leaderboard)."""
