import { NotFoundNotice } from "@/components/not-found-notice";

export default function NotFound() {
  return <NotFoundNotice />;
}
