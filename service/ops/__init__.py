"""Operations: how gunicorn serves the app (worker class, listening plan), logs and metrics."""
