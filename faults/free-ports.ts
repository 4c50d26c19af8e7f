// The harness listens on fixed ports; something already there (a run that was SIGKILLed and left
// its app behind) would answer our health checks and turn the whole run into nonsense.
import net from "node:net";

export async function assertPortsFree(ports: Record<string, number>): Promise<void> {
  for (const [name, port] of Object.entries(ports)) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (!free)
      throw new Error(
        `port ${port} (${name}) is in use; a previous run may have been killed hard: see \`ss -ltnp | grep ${port}\``,
      );
  }
}
