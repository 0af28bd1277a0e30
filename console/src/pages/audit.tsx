// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function AuditPage() {
  return <PageHeader title="Audit" />;
}
