"""Who uses the app: the sign-in, the person a session records as, and what every page says of the
server."""
