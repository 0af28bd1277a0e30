// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function ApprovalsPage() {
  return <PageHeader title="Approvals" />;
}
