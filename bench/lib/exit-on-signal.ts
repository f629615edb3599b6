// Preloaded (node -r) into a server profiled with --cpu-prof. V8 writes the profile only when the
// process exits normally, and chaintags' shutdown hooks end it by re-raising SIGTERM, so the
// benchmark stops a profiled server with SIGUSR2 instead, which this turns into a normal exit.
process.on('SIGUSR2', () => process.exit(0));
