// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function CompliancePage() {
  return <PageHeader title="Compliance" />;
}
