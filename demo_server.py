# demo_server.py
from mcp.server.mcpserver import MCPServer

server = MCPServer("demo")


@server.tool()
def get_forecast(city: str, days: int = 1) -> str:
    """The weather forecast for a city."""
    return f"{city}: sunny for {days} day(s)"


@server.tool()
def convert(celsius: float) -> float:
    """Celsius to Fahrenheit."""
    return celsius * 9 / 5 + 32


@server.tool()
def delete_everything() -> str:
    """A tool nobody should be given."""
    return "gone"


if __name__ == "__main__":
    server.run("stdio")
