// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function OverviewPage() {
  return <PageHeader title="Overview" />;
}
