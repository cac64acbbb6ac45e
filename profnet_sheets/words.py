"""Words for users: counts with the right plural."""


def counted(number: int, one: str, many: str | None = None) -> str:
    """`1 credit`, `2 credits`, `1,200 leads` (`many`: the plural, when not `one` + s)."""
    return f"{number:,} " + (one if number == 1 else many or one + "s")
