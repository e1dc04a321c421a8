"""The Flask application and what wraps it: the app factory, the docs UIs, /play, CORS,
security headers, the body limit and the JSON provider."""
