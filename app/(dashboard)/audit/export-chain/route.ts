import { auditChainLines } from "@/lib/views/audit/audit-chain-export";
import { jsonlExportRoute } from "../../../_lib/jsonl-export-route";

export const dynamic = "force-dynamic";

export const GET = jsonlExportRoute({ permission: "audit.export", name: "audit-chain", lines: auditChainLines });
