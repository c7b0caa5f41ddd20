"""Shared pytest configuration for the Python tests: registers the project's markers."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "large_data: writes and reads gigabytes (select with -m large_data, "
        "skip with -m 'not large_data')")
