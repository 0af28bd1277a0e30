// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function DecisionsPage() {
  return <PageHeader title="Decisions" />;
}
