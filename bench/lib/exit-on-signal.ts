// Preloaded (node -r) into a server profiled with --cpu-prof. V8 writes the profile only when the
// process exits normally; SIGTERM now ends chaintags normally too, but only after draining its
// connections (up to 10 s), so the benchmark stops a profiled server at once with SIGUSR2, which
// this turns into a normal exit.
process.on('SIGUSR2', () => process.exit(0));
